// The SDK logs every worker state change and bundle build at INFO; tests want warnings and errors only.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
