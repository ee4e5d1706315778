export { QuotaLedger } from './ledger.ts';
export type { ReserveRequest } from './ledger.ts';
