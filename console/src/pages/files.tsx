import { useCallback, useEffect, useState } from 'preact/hooks';
import { ErrorBox } from '../errors.tsx';
import type { Schemas } from '../../../clients/typescript/index.ts';
import { uploadFile } from '../upload.ts';
import type { Session } from '../main.tsx';

type FileEntry = Schemas['FileEntry'];

const ROOT = '/workspace';
const join = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`;
const parent = (dir: string) => (dir === ROOT ? ROOT : dir.replace(/\/[^/]+\/?$/, '') || ROOT);

interface Upload {
  name: string;
  fraction: number;
  done: boolean;
}

/** The workspace: browse, upload (drop or pick, with progress), download, delete, mkdir. */
export function FilesTab({ session, name }: { session: Session; name: string }) {
  const [dir, setDir] = useState(ROOT);
  const [entries, setEntries] = useState<FileEntry[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const [newDir, setNewDir] = useState('');
  const [confirm, setConfirm] = useState<string>();
  const refresh = useCallback(async () => {
    try {
      const { entries: list } = await session.client.listFiles(name, dir);
      list.sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));
      setEntries(list);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }, [session, name, dir]);
  useEffect(() => void refresh(), [refresh]);

  const upload = async (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      setUploads((u) => [
        ...u.filter((x) => x.name !== file.name),
        { name: file.name, fraction: 0, done: false },
      ]);
      const progress = (fraction: number) =>
        setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, fraction } : x)));
      try {
        await uploadFile(session, name, join(dir, file.name), file, progress);
        setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, fraction: 1, done: true } : x)));
      } catch (err) {
        setError(err);
        setUploads((u) => u.filter((x) => x.name !== file.name));
      }
    }
    await refresh();
  };
  const download = async (entry: FileEntry) => {
    try {
      const blob = await (await session.client.readFile(name, entry.path)).blob();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = entry.name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (entry: FileEntry) => {
    setConfirm(undefined);
    try {
      await session.client.deleteFile(name, entry.path, { recursive: entry.isDir });
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <div class="title-row">
        <h2>
          Files in <code>{dir}</code>
        </h2>
        {dir !== ROOT ? (
          <button type="button" onClick={() => setDir(parent(dir))}>
            Up
          </button>
        ) : null}
      </div>
      <div
        class={dragging ? 'dropzone over' : 'dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          if (e.dataTransfer?.files) void upload(e.dataTransfer.files);
        }}
      >
        <p>Drop files here to upload them to {dir}, or</p>
        <label for="upload" class="button">
          Choose files
        </label>
        <input
          id="upload"
          type="file"
          multiple
          class="visually-hidden-input"
          onChange={(e) => {
            const files = e.currentTarget.files;
            if (files) void upload(Array.from(files));
            e.currentTarget.value = '';
          }}
        />
      </div>
      {uploads.length > 0 ? (
        <ul class="uploads">
          {uploads.map((u) => (
            <li key={u.name} data-upload={u.name} data-done={u.done ? 'true' : 'false'}>
              <label>
                {u.name} {u.done ? '(uploaded)' : ''}
                <progress max={1} value={u.fraction} />
              </label>
            </li>
          ))}
        </ul>
      ) : null}
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const n = newDir.trim();
          if (!n) return;
          session.client
            .fileOperation(name, join(dir, n), { op: 'mkdir' })
            .then(() => {
              setNewDir('');
              return refresh();
            })
            .catch(setError);
        }}
      >
        <label for="new-dir">New folder</label>
        <input id="new-dir" value={newDir} onInput={(e) => setNewDir(e.currentTarget.value)} />
        <button type="submit">Create folder</button>
      </form>
      <ErrorBox error={error} />
      {entries ? (
        <div class="scroll">
          <table class="list files">
            <caption class="sr-only">Files in {dir}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Size</th>
                <th scope="col">Mode</th>
                <th scope="col">Modified</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((f) => (
                <tr key={f.path} data-file={f.name}>
                  <td>
                    {f.isDir ? (
                      <button type="button" class="link" onClick={() => setDir(f.path)}>
                        {f.name}/
                      </button>
                    ) : (
                      f.name
                    )}
                  </td>
                  <td>{f.isDir ? '' : f.size}</td>
                  <td>
                    <code>{f.mode}</code>
                  </td>
                  <td>{new Date(f.modifiedAt * 1000).toLocaleString()}</td>
                  <td>
                    <div class="actions">
                      {f.isDir ? null : (
                        <button
                          type="button"
                          aria-label={`Download ${f.name}`}
                          onClick={() => void download(f)}
                        >
                          Download
                        </button>
                      )}
                      {confirm === f.path ? (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Really delete ${f.name}`}
                          onClick={() => void remove(f)}
                        >
                          Really delete
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Delete ${f.name}`}
                          onClick={() => setConfirm(f.path)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {entries && entries.length === 0 ? <p>Empty folder.</p> : null}
    </>
  );
}
