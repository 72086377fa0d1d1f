// `scheduler audit`: what became of every slot a schedule's definitions called for in a range, or of every
// schedule of the tenant ("what didn't run last night?").
import type { Command } from 'commander';
import type { ScheduleAudit, TenantAudit } from '../model/audit.js';
import { formatAudit, formatTenantAudit } from './audit-format.js';
import { type Cli, type CommonFlags, schedulePath } from './command-context.js';
import { connectionOptions, serverCommand } from './command-options.js';
import { type AuditFlags, buildAuditQuery } from './requests.js';

export function auditCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'audit [id]',
      "what became of every slot its definitions called for in a range; without an id, every schedule of your tenant (what didn't run)",
      [
        'scheduler audit nightly-export --from 2026-12-06T18:00:00Z',
        'scheduler audit --from 2026-12-06T18:00:00Z --to 2026-12-07T08:00:00Z   # the whole tenant',
      ],
    )
      .option('--from <instant>', 'start of the range (an instant with Z or an offset)')
      .option('--to <instant>', 'end of the range (default: now)')
      .option('--late-after <seconds>', 'a slot handed off later than this is LATE (default 60)')
      .option('--all', 'list every slot, the on-time and removed ones too'),
  ).action(async (id: string | undefined, flags: CommonFlags & AuditFlags & { all?: boolean }) => {
    const query = buildAuditQuery(flags, cli.io.now());
    const api = cli.client(flags);
    if (id) {
      const res = await api.request<ScheduleAudit>('GET', schedulePath(id, '/audit'), { query });
      cli.answer(flags, res.body, (audit) => formatAudit(audit, flags.all ?? false));
      return;
    }
    const res = await api.request<TenantAudit>('GET', '/v1/audit', { query });
    cli.answer(flags, res.body, formatTenantAudit);
  });
}
