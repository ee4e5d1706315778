export {
  ConfigureRequest,
  ConfigureResult,
  CancelRequest,
  MAX_INVOKE_BODY_BYTES,
  filesDigest,
  installCommandHash,
  installRunId,
} from './configure.ts';
