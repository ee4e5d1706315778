export { QuotaLedger } from './ledger.ts';
export type { LedgerSnapshot, ReserveRequest } from './ledger.ts';
