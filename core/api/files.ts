import { z } from 'zod';
import { NamespaceQuery } from './params.ts';

/**
 * The file and archive endpoints' requests and answers. A path is absolute (`/workspace/…`);
 * whether it is inside the workspace is the route's to say (400 `path_outside_workspace`),
 * not a schema's.
 */
const AbsolutePath = z.string().min(1).max(4096).meta({ description: 'An absolute path inside /workspace' });

export const FileEntry = z
  .object({
    name: z.string(),
    path: z.string(),
    size: z.int(),
    isDir: z.boolean(),
    type: z.enum(['file', 'dir', 'symlink']),
    mode: z
      .string()
      .regex(/^[-dlpscb?]([-r][-w][-xsS]){2}[-r][-w][-xtT]$/)
      .meta({
        description:
          'Type and permission bits as `ls -l` writes them: `-rw-r--r--`, `drwxr-xr-x`, `lrwxrwxrwx`; setuid, setgid and sticky as `s`/`S` and `t`/`T` in the execute slots',
      }),
    modifiedAt: z.int().meta({ description: 'Seconds since the epoch' }),
  })
  .meta({ id: 'FileEntry' });

export const FileListing = z
  .object({ path: z.string(), entries: z.array(FileEntry) })
  .meta({ id: 'FileListing' });

export const FileWritten = z
  .object({ path: z.string(), size: z.int(), sha256: z.string() })
  .meta({ id: 'FileWritten' });

export const FilePathResult = z.object({ path: z.string() }).meta({ id: 'FilePath' });

export const FileOperation = z
  .discriminatedUnion('op', [
    z.object({ op: z.literal('mkdir') }),
    z.object({ op: z.literal('move'), to: AbsolutePath }),
  ])
  .meta({ id: 'FileOperation' });

export const ArchiveExtracted = z
  .object({
    files: z.int().meta({ description: 'Files and links written' }),
    bytes: z.int().meta({ description: 'Bytes of the files written' }),
  })
  .meta({ id: 'ArchiveExtracted' });

export const ListFilesQuery = NamespaceQuery.extend({ path: AbsolutePath });
export const ReadFileQuery = NamespaceQuery;
export const WriteFileQuery = NamespaceQuery.extend({
  mode: z
    .string()
    .regex(/^0?[0-7]{3,4}$/, 'must be octal permission bits, such as 0644 or 0755')
    .optional(),
});
export const DeleteFileQuery = NamespaceQuery.extend({ recursive: z.enum(['true', 'false']).optional() });
export const DownloadArchiveQuery = NamespaceQuery.extend({
  path: AbsolutePath,
  format: z.enum(['zip', 'tar', 'tar.gz']).optional(),
});
export const UploadArchiveQuery = NamespaceQuery.extend({ path: AbsolutePath });
