// Makes a fresh clone runnable: `npm start` and `npm test` call this first.
//   --deps         npm dependencies (npm ci on a fresh clone)
//   --dev-server   the Temporal CLI
//   --start        (with --dev-server) skip the CLI when TEMPORAL_ADDRESS names a server to use instead
//   --test-server  the Java time-skipping test server
//   --temporal-server  the Temporal server and temporal-sql-tool (test/helpers/secured-temporal.ts runs it
//                  locked down: mTLS and JWT authorization)
//   --python       the Python packages of the differential tests
//   --chromium     headless Chromium for the console's browser test (apt-get install chromium when root)
import {
  ensureChromium,
  ensureNodeDependencies,
  ensurePythonTestDependencies,
  ensureTemporalCli,
  ensureTemporalServer,
  ensureTestServer,
  ToolchainError,
} from './toolchain.mjs';

const args = new Set(process.argv.slice(2));
const log = (line) => console.error(`[bootstrap] ${line}`);

try {
  if (args.has('--deps')) ensureNodeDependencies({ log });
  if (args.has('--dev-server') && !(args.has('--start') && process.env.TEMPORAL_ADDRESS)) {
    await ensureTemporalCli({ log });
  }
  if (args.has('--test-server')) await ensureTestServer({ log });
  if (args.has('--temporal-server')) await ensureTemporalServer({ log });
  if (args.has('--python')) ensurePythonTestDependencies({ log });
  if (args.has('--chromium')) ensureChromium({ log });
} catch (err) {
  if (err instanceof ToolchainError) {
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
