// Entry of the sandboxd single executable: `sandboxd [flags] [-- command…]`.
import { main } from '../../cmd/sandboxd.ts';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`sandboxd: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
