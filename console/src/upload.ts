// Uploads with progress. XMLHttpRequest is the one browser API that reports how much of a
// request body has been sent (fetch does not); the rest of the console uses the client.
import { errorFromResponse } from '../../clients/typescript/index.ts';
import type { Session } from './main.tsx';
import { authHeaders } from './session.ts';

/** PUT /api/v1/sandboxes/{id}/files/{path}: `onProgress` gets the fraction sent. */
export function uploadFile(
  session: Session,
  name: string,
  path: string,
  file: Blob,
  onProgress: (fraction: number) => void,
): Promise<void> {
  const url = `/api/v1/sandboxes/${encodeURIComponent(name)}/files/${path
    .replace(/^\/+/, '')
    .split('/')
    .map(encodeURIComponent)
    .join('/')}`;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
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
        // not JSON: the text is the message
      }
      reject(errorFromResponse(xhr.status, new Headers(), body));
    };
    xhr.onerror = () => reject(new Error('the upload failed (network)'));
    xhr.send(file);
  });
}
