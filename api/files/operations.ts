import {
  ArchiveExtracted,
  DeleteFileQuery,
  DownloadArchiveQuery,
  FileListing,
  FileOperation,
  FilePathResult,
  FileWritten,
  ListFilesQuery,
  NamespaceQuery,
  UploadArchiveQuery,
  WriteFileQuery,
} from '../../core/index.ts';
import type { Status } from '../openapi/document.ts';
import { operation } from '../openapi/route.ts';

/** A path outside the workspace is a 400; a stopped sandbox a 409. */
const onFiles: Status[] = [400, 401, 403, 404, 409, 503];
/** A transfer counts against its user's `limits.perUserConcurrency`: 429 past it. */
const onTransfers: Status[] = [...onFiles, 429];
const octets = ['application/octet-stream'];

/*
 * The file and archive endpoints. In `{path}` a path is the absolute path in the sandbox
 * without its leading slash (`workspace/app/x.py`); in `?path=` it is absolute. sandboxd does
 * the work and its answers are relayed as they are (`relayed`), in the shapes declared here.
 */

export const listFiles = operation({
  method: 'get',
  path: '/sandboxes/{id}/files',
  operationId: 'listFiles',
  summary: 'List a folder of the workspace (`?path=/workspace/…`; `/files/?path=` works too)',
  trailingSlash: true,
  query: ListFilesQuery,
  responses: { 200: FileListing },
  errors: onFiles,
  relayed: true,
});

export const readFile = operation({
  method: 'get',
  path: '/sandboxes/{id}/files/{path}',
  operationId: 'readFile',
  summary: "A file's bytes, streamed (Range → 206; ETag, Last-Modified); a folder answers with its listing",
  query: NamespaceQuery,
  binary: octets,
  responses: { 200: FileListing, 206: undefined },
  errors: [...onTransfers, 416],
});

export const writeFile = operation({
  method: 'put',
  path: '/sandboxes/{id}/files/{path}',
  operationId: 'writeFile',
  summary:
    'Write a file from the raw body, streamed (temporary file, then rename; folders created); 201 new, 200 replaced',
  query: WriteFileQuery,
  rawRequest: true,
  responses: { 200: FileWritten, 201: FileWritten },
  errors: [...onTransfers, 507],
  relayed: true,
});

export const deleteFile = operation({
  method: 'delete',
  path: '/sandboxes/{id}/files/{path}',
  operationId: 'deleteFile',
  summary: 'Delete a file, link or empty folder (`?recursive=true` for a folder with entries)',
  query: DeleteFileQuery,
  responses: { 204: undefined },
  errors: onFiles,
  relayed: true,
});

export const fileOperation = operation({
  method: 'post',
  path: '/sandboxes/{id}/files/{path}',
  operationId: 'fileOperation',
  summary: 'Make a folder (`{"op":"mkdir"}`) or move an entry (`{"op":"move","to":"/workspace/…"}`)',
  query: NamespaceQuery,
  request: FileOperation,
  // Read by the handler within its own bound (`/files/…` bodies are exempt from the JSON one).
  ownBody: true,
  responses: { 200: FilePathResult, 201: FilePathResult },
  errors: [...onFiles, 413],
  relayed: true,
});

export const downloadArchive = operation({
  method: 'get',
  path: '/sandboxes/{id}/archive',
  operationId: 'downloadArchive',
  summary: 'A folder as a zip (default), tar or tar.gz, streamed (modes, times and links kept)',
  query: DownloadArchiveQuery,
  binary: ['application/zip', 'application/x-tar', 'application/gzip'],
  responses: { 200: undefined },
  errors: onTransfers,
});

export const uploadArchive = operation({
  method: 'put',
  path: '/sandboxes/{id}/archive',
  operationId: 'uploadArchive',
  summary:
    'Extract a tar or tar.gz into a folder; any entry that would land outside the workspace refuses the whole archive before anything is written',
  query: UploadArchiveQuery,
  rawRequest: true,
  responses: { 200: ArchiveExtracted },
  errors: [...onTransfers, 507],
  relayed: true,
});

/** Files and archives, in the document's order. */
export const fileOperations = [
  listFiles,
  readFile,
  writeFile,
  deleteFile,
  fileOperation,
  downloadArchive,
  uploadArchive,
];
