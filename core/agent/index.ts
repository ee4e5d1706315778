export {
  ConfigureRequest,
  ConfigureResult,
  CancelRequest,
  MAX_INVOKE_BODY_BYTES,
  filesDigest,
  filesDigestOfHashes,
  installCommandHash,
  installRunId,
} from './configure.ts';
