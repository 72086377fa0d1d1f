export const TEMPORAL_CLI_VERSION: string;
export const repoRoot: string;
export class ToolchainError extends Error {}
export function cacheDir(): string;
export function findTemporalCli(): string | null;
export function findTestServer(): string | null;
export function sdkDownloadReachable(): Promise<boolean>;
export function ensureTemporalCli(opts?: { log?: (line: string) => void }): Promise<string | null>;
export function ensureTestServer(opts?: { log?: (line: string) => void }): Promise<string | null>;
export function ensureNodeDependencies(opts?: { log?: (line: string) => void }): void;
export function ensurePythonTestDependencies(opts?: { log?: (line: string) => void }): void;
export const TEMPORAL_CLI_MODULE: string;
export const TEMPORAL_SERVER_VERSION: string;
export const TEMPORAL_SERVER_MODULE: string;
export function findTemporalServer(): { server: string; sqlTool: string } | null;
export function ensureTemporalServer(opts?: {
  log?: (line: string) => void;
}): Promise<{ server: string; sqlTool: string }>;
export function findChromium(): string | null;
export function launchChromium(executablePath: string): Promise<import('puppeteer-core').Browser>;
export function ensureChromium(opts?: { log?: (line: string) => void }): string;
