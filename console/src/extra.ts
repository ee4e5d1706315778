// Calls to routes being added in parallel (templates); replaced by the client's methods
// once they are merged.
import { errorFromResponse } from '../../clients/typescript/index.ts';
import type { Session } from './main.tsx';
import { authHeaders } from './session.ts';

export interface TemplateInfo {
  name: string;
  kind: 'ClusterSandboxTemplate' | 'SandboxTemplate';
  description?: string;
}

export async function listTemplates(session: Session): Promise<TemplateInfo[]> {
  const res = await fetch('/api/v1/templates', { headers: authHeaders(session.credential) });
  const body = (await res.json().catch(() => ({}))) as { templates?: TemplateInfo[] };
  if (!res.ok) throw errorFromResponse(res.status, res.headers, body);
  return body.templates ?? [];
}

export interface FileEntry {
  name: string;
  path: string;
  size: number;
  isDir: boolean;
  type: 'file' | 'dir' | 'symlink';
  mode: string | number;
  modifiedAt: number;
}

const sandboxPath = (name: string) => `/api/v1/sandboxes/${encodeURIComponent(name)}`;
/** `/workspace/a b/c` as the URL's path part: `workspace/a%20b/c`. */
const filePath = (path: string) => path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');

async function call(session: Session, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(authHeaders(session.credential))) headers.set(k, v);
  const res = await fetch(url, { ...init, headers });
  if (!res.ok) {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text is the message
    }
    throw errorFromResponse(res.status, res.headers, body);
  }
  return res;
}

export async function listFiles(session: Session, name: string, path: string): Promise<FileEntry[]> {
  const res = await call(session, `${sandboxPath(name)}/files/?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { entries: FileEntry[] }).entries;
}

export async function downloadFile(session: Session, name: string, path: string): Promise<Blob> {
  return (await call(session, `${sandboxPath(name)}/files/${filePath(path)}`)).blob();
}

export async function deleteFile(
  session: Session,
  name: string,
  path: string,
  recursive: boolean,
): Promise<void> {
  await call(session, `${sandboxPath(name)}/files/${filePath(path)}${recursive ? '?recursive=true' : ''}`, {
    method: 'DELETE',
  });
}

export async function makeDir(session: Session, name: string, path: string): Promise<void> {
  await call(session, `${sandboxPath(name)}/files/${filePath(path)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'mkdir' }),
  });
}

/**
 * A file's bytes PUT with XMLHttpRequest, the one browser API that reports upload progress
 * (fetch does not); `onProgress` gets the fraction sent.
 */
export function uploadFile(
  session: Session,
  name: string,
  path: string,
  file: Blob,
  onProgress: (fraction: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', `${sandboxPath(name)}/files/${filePath(path)}`);
    for (const [k, v] of Object.entries(authHeaders(session.credential))) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON
      }
      reject(errorFromResponse(xhr.status, new Headers(), body));
    };
    xhr.onerror = () => reject(new Error('the upload failed (network)'));
    xhr.send(file);
  });
}

export async function terminalTicket(session: Session, name: string): Promise<string> {
  const res = await call(session, `${sandboxPath(name)}/terminal/ticket`, { method: 'POST' });
  return ((await res.json()) as { ticket: string }).ticket;
}
