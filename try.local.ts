import { interpret, InterpretError } from './src/model/interpret.ts';
const now = '2026-12-02T10:00:00Z';
const cases: Array<[string, string?]> = process.argv.slice(2).length ? process.argv.slice(2).map((a) => a.split('|') as [string, string?]) : [
  ['every 10 minutes'], ['every weekday at 09:00 in Europe/Riga'], ['in 20 minutes'], ['48 hours after the e-mail was sent'],
  ['on the last Friday of every month at 17:00', 'Europe/Riga'], ['every 2 weeks on Monday and Thursday until March', 'Europe/Riga'],
  ['every 15 minutes during business hours', 'Europe/Riga'], ['deadline 31 December 2026 at 17:00 in Riga, remind me a day and an hour before'],
  ['every day at 5', 'Europe/Riga'], ['every month on the 31st at 10:00', 'Europe/Riga'], ['blorf gleep'], ['every day at 09:00'],
  ['once at 14:00 on 5 September in Europe/Riga'], ['evry weekday at 9am in Riga'], ['next Friday at 10:00', 'Europe/Riga'],
  ['каждый будний день в 9:00 по Риге'], ['через 20 минут'], ['в последнюю пятницу каждого месяца в 17:00 по Москве'],
  ['каждые 15 минут в рабочее время', 'Europe/Riga'], ['дедлайн 31 декабря в 17:00 по Риге, напомнить за день и за час'],
  ['раз в две недели в понедельник и четверг в 9:00 до марта', 'Europe/Riga'], ['cron 0 9 * * 1-5 in Europe/Riga'],
  ['10 minutes after each run finishes'], ['every hour from 9 to 17 on weekdays', 'Europe/Riga'], ['tomorrow at 9am', 'Europe/Riga'],
];
for (const [text, timezone] of cases) {
  try {
    const r = interpret({ text, now, ...(timezone ? { timezone } : {}), count: 3 }, new Date(now));
    console.log(JSON.stringify(text), '→', JSON.stringify(r.timing), JSON.stringify({ ...r, timing: undefined, text: undefined, next_runs: undefined, language: undefined }), r.next_runs.map((n) => n.local).join(' '));
  } catch (e) {
    if (e instanceof InterpretError) console.log(JSON.stringify(text), '✗', e.problem.code, e.problem.reason, JSON.stringify((e.problem as any).readings?.map((r: any) => [r.timing, r.next_runs[0]?.local]) ?? (e.problem as any).unread ?? ''));
    else console.log(JSON.stringify(text), 'THROWS', e);
  }
}
