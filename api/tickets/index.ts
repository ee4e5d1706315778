export { issueTicket, verifyTicket, invalidTicket } from './tickets.ts';
export type { Ticket, TicketPurpose } from './tickets.ts';
