// Russian, as data for the reader (lexicon.ts). Inflected forms are listed, or matched by their stem.
import type { Weekday } from '../timing.js';
import { FILLER, kw, type Lexicon, type LexToken, num, type Unit, unit } from './lexicon.js';

const words: Record<string, LexToken> = {
  в: kw('at'),
  во: kw('at'),
  на: kw('on'),
  через: kw('delay'),
  спустя: kw('delay'),
  после: kw('after'),
  за: kw('before-prefix'),
  до: kw('until'),
  по: kw('by'),
  с: kw('from'),
  со: kw('from'),
  между: kw('between'),
  и: kw('and'),
  а: kw('and'),
  раз: kw('times'),
  раза: kw('times'),
  однократно: kw('once'),
  дважды: kw('twice'),
  сегодня: kw('today'),
  завтра: kw('tomorrow'),
  послезавтра: kw('day-after-tomorrow'),
  полдень: kw('noon'),
  полночь: kw('midnight'),
  ежедневно: kw('daily'),
  еженедельно: kw('weekly'),
  ежемесячно: kw('monthly'),
  ежегодно: kw('yearly'),
  ежечасно: kw('hourly'),
  ежеквартально: kw('quarterly'),
  только: kw('only'),
  кроме: kw('except'),
  утро: { k: 'part', v: 'morning' },
  вечер: { k: 'part', v: 'evening' },
  дедлайн: kw('deadline'),
  срок: kw('deadline'),
  напомнить: kw('remind'),
  напомни: kw('remind'),
  напоминать: kw('remind'),
  напоминание: kw('remind'),
  напоминания: kw('remind'),
  напоминаниями: kw('remind'),
  числа: kw('day-of-month'),
  число: kw('day-of-month'),
  времени: kw('time-word'),
  время: kw('time-word'),
  часов: unit('hour', true),
  мск: { k: 'zone', v: 'Europe/Moscow' },
  utc: { k: 'zone', v: 'UTC' },
  полчаса: { k: 'half-hour' },
  полтора: { k: 'and-a-half' },
  полторы: { k: 'and-a-half' },
  утра: { k: 'part', v: 'morning' },
  утром: { k: 'part', v: 'morning' },
  дня: { k: 'part', v: 'afternoon' }, // "в 3 дня"; as a unit (2 дня) the grammar reads it back
  днём: { k: 'part', v: 'afternoon' },
  днем: { k: 'part', v: 'afternoon' },
  вечера: { k: 'part', v: 'evening' },
  вечером: { k: 'part', v: 'evening' },
  ночи: { k: 'part', v: 'night' },
  ночь: { k: 'part', v: 'night' },
  половине: kw('half'),
  четверть: kw('quarter-hour'),
  четверти: kw('quarter-hour'),
  без: kw('less'),
  ночью: { k: 'part', v: 'night' },
  // numbers
  ноль: num(0),
  один: num(1),
  одна: num(1),
  одну: num(1),
  одного: num(1),
  одной: num(1),
  два: num(2),
  две: num(2),
  двух: num(2),
  пару: num(2),
  три: num(3),
  трёх: num(3),
  трех: num(3),
  четыре: num(4),
  пять: num(5),
  шесть: num(6),
  семь: num(7),
  восемь: num(8),
  девять: num(9),
  десять: num(10),
  одиннадцать: num(11),
  двенадцать: num(12),
  тринадцать: num(13),
  четырнадцать: num(14),
  пятнадцать: num(15),
  шестнадцать: num(16),
  семнадцать: num(17),
  восемнадцать: num(18),
  девятнадцать: num(19),
  двадцать: num(20),
  тридцать: num(30),
  сорок: num(40),
  пятьдесят: num(50),
  шестьдесят: num(60),
  семьдесят: num(70),
  восемьдесят: num(80),
  девяносто: num(90),
  сто: num(100),
  // filler
  мне: FILLER,
  нам: FILLER,
  пожалуйста: FILLER,
  запуск: FILLER,
  запускать: FILLER,
  запусти: FILLER,
  запустить: FILLER,
  выполнять: FILLER,
  задачу: FILLER,
  задача: FILLER,
  это: FILLER,
  о: FILLER,
  об: FILLER,
};

const UNITS: Array<[Unit, string[], string[]]> = [
  ['second', ['секунда', 'секунду'], ['секунды', 'секунд']],
  ['minute', ['минута', 'минуту'], ['минуты', 'минут']],
  ['hour', ['час'], ['часа', 'часов']],
  ['day', ['день', 'сутки'], ['дней', 'суток']],
  ['week', ['неделя', 'неделю', 'недели'], ['недель']],
  ['month', ['месяц', 'месяца'], ['месяцев']],
  ['quarter', ['квартал', 'квартала'], ['кварталов']],
  ['year', ['год', 'года'], ['лет']],
];
for (const [u, singular, plural] of UNITS) {
  for (const w of singular) words[w] = unit(u);
  for (const w of plural) words[w] = unit(u, true);
}

const ORDINALS: Array<[number, string[]]> = [
  [1, ['первый', 'первую', 'первое', 'первого', 'первой', 'первым']],
  [2, ['второй', 'вторую', 'второе', 'второго', 'вторым']],
  [3, ['третий', 'третью', 'третье', 'третьего', 'третьей']],
  [
    4,
    [
      'четвертый',
      'четвёртый',
      'четвертую',
      'четвёртую',
      'четвертое',
      'четвёртое',
      'четвертого',
      'четвёртого',
    ],
  ],
  [5, ['пятый', 'пятую', 'пятое', 'пятого']],
  [-1, ['последний', 'последнюю', 'последнее', 'последнего', 'последней', 'последним']],
];
for (const [v, forms] of ORDINALS) for (const w of forms) words[w] = { k: 'ord', v };
// the genitive ordinals of days and hours: "десятого числа", "пятого декабря", "в половине десятого"
const GENITIVE = [
  'шестого',
  'седьмого',
  'восьмого',
  'девятого',
  'десятого',
  'одиннадцатого',
  'двенадцатого',
  'тринадцатого',
  'четырнадцатого',
  'пятнадцатого',
  'шестнадцатого',
  'семнадцатого',
  'восемнадцатого',
  'девятнадцатого',
  'двадцатого',
];
GENITIVE.forEach((w, i) => {
  words[w] = { k: 'ord', v: i + 6 };
});
words.тридцатого = { k: 'ord', v: 30 };

const EVERY = ['каждый', 'каждая', 'каждое', 'каждые', 'каждую', 'каждого', 'каждой', 'каждом', 'каждых'];
for (const w of EVERY) words[w] = kw('every');
for (const w of [
  'следующий',
  'следующую',
  'следующее',
  'следующей',
  'следующего',
  'ближайший',
  'ближайшую',
  'ближайшее',
])
  words[w] = kw('next');
for (const w of ['этот', 'эту', 'это', 'этой', 'этого']) words[w] = kw('this');

const WEEKDAYS: Array<[Weekday, string[], string[]]> = [
  ['MO', ['понедельник', 'понедельника', 'пн'], ['понедельникам', 'понедельники']],
  ['TU', ['вторник', 'вторника', 'вт'], ['вторникам', 'вторники']],
  ['WE', ['среда', 'среду', 'среды', 'ср'], ['средам']],
  ['TH', ['четверг', 'четверга', 'чт'], ['четвергам', 'четверги']],
  ['FR', ['пятница', 'пятницу', 'пятницы', 'пт'], ['пятницам']],
  ['SA', ['суббота', 'субботу', 'субботы', 'сб'], ['субботам']],
  ['SU', ['воскресенье', 'воскресенья', 'вс'], ['воскресеньям']],
];
for (const [v, singular, plural] of WEEKDAYS) {
  for (const w of singular) words[w] = { k: 'weekday', v };
  for (const w of plural) words[w] = { k: 'weekday', v, plural: true };
}
for (const w of ['будни', 'будням', 'будний', 'будние', 'будним']) words[w] = { k: 'weekdays', v: 'work' };
for (const w of ['выходные', 'выходным', 'выходной', 'выходных']) words[w] = { k: 'weekdays', v: 'weekend' };

const MONTH_STEMS = [
  'январ',
  'феврал',
  'март',
  'апрел',
  'ма',
  'июн',
  'июл',
  'август',
  'сентябр',
  'октябр',
  'ноябр',
  'декабр',
];
const MONTH_FORMS = ['я', 'ь', 'е', 'ю', 'а', ''];
MONTH_STEMS.forEach((stem, i) => {
  for (const end of MONTH_FORMS) {
    const w = stem + end;
    if (stem === 'ма' && !['мая', 'май', 'мае'].includes(w)) continue;
    if (stem === 'март' && end === 'я') continue;
    words[w] = { k: 'month', v: i + 1 };
  }
});
words.мая = { k: 'month', v: 5 };
words.май = { k: 'month', v: 5 };
words.мае = { k: 'month', v: 5 };

const phrases: Record<string, LexToken> = {
  'раз в': kw('per'),
  'один раз': kw('once'),
  'начиная с': kw('starting'),
  'начиная со': kw('starting'),
  'рабочее время': kw('business-hours'),
  'в рабочее время': kw('business-hours'),
  'рабочие часы': kw('business-hours'),
  'в рабочие часы': kw('business-hours'),
  'рабочие дни': { k: 'weekdays', v: 'work' },
  'будний день': { k: 'weekdays', v: 'work' },
  'будние дни': { k: 'weekdays', v: 'work' },
  'будним дням': { k: 'weekdays', v: 'work' },
  'выходной день': { k: 'weekdays', v: 'weekend' },
  'выходные дни': { k: 'weekdays', v: 'weekend' },
  'выходным дням': { k: 'weekdays', v: 'weekend' },
  'рабочим дням': { k: 'weekdays', v: 'work' },
  'рабочий день': { k: 'weekdays', v: 'work' },
  'рабочего дня': { k: 'weekdays', v: 'work' },
  'рабочих дня': { k: 'weekdays', v: 'work' },
  'рабочих дней': { k: 'weekdays', v: 'work' },
  'рабочему дню': { k: 'weekdays', v: 'work' },
  'после завершения каждого запуска': kw('run-done'),
  'после завершения предыдущего запуска': kw('run-done'),
  'после окончания каждого запуска': kw('run-done'),
  'после окончания предыдущего запуска': kw('run-done'),
  'после завершения предыдущего': kw('run-done'),
  'после каждого завершения': kw('run-done'),
  'после завершения': kw('run-done'),
  'после окончания': kw('run-done'),
  'крайний срок': kw('deadline'),
  'в ночь перевода часов': kw('dst-day'),
  'в день перевода часов': kw('dst-day'),
  'ночь перевода часов': kw('dst-day'),
  'вне окна пропускать': kw('window-skip'),
  'вне окна переносить': kw('window-defer'),
  'считая от создания расписания': kw('from-creation'),
  'считая от создания': kw('from-creation'),
  'каждый месяц': kw('monthly'),
  'каждого месяца': kw('monthly'),
  'в месяц': kw('monthly'),
  'в день': kw('daily'),
  'в неделю': kw('weekly'),
  'в сутки': kw('daily'),
};

const CITIES: Array<[string, string, number]> = [
  ['риг', 'Europe/Riga', 2],
  ['москв', 'Europe/Moscow', 2],
  ['московск', 'Europe/Moscow', 4],
  ['берлин', 'Europe/Berlin', 2],
  ['берлинск', 'Europe/Berlin', 4],
  ['лондон', 'Europe/London', 2],
  ['лондонск', 'Europe/London', 4],
  ['париж', 'Europe/Paris', 2],
  ['нью-йорк', 'America/New_York', 2],
  ['токио', 'Asia/Tokyo', 0],
  ['киев', 'Europe/Kyiv', 2],
  ['вильнюс', 'Europe/Vilnius', 2],
  ['таллин', 'Europe/Tallinn', 3],
  ['минск', 'Europe/Minsk', 2],
  ['варшав', 'Europe/Warsaw', 2],
  ['хельсинки', 'Europe/Helsinki', 0],
  ['стамбул', 'Europe/Istanbul', 2],
  ['дуба', 'Asia/Dubai', 2],
  ['лос-анджелес', 'America/Los_Angeles', 2],
  ['чикаго', 'America/Chicago', 0],
  ['сидне', 'Australia/Sydney', 2],
  ['екатеринбург', 'Asia/Yekaterinburg', 2],
  ['новосибирск', 'Asia/Novosibirsk', 2],
  ['владивосток', 'Asia/Vladivostok', 2],
  ['самар', 'Europe/Samara', 2],
  ['калининград', 'Europe/Kaliningrad', 2],
  ['алмат', 'Asia/Almaty', 2],
  ['ташкент', 'Asia/Tashkent', 2],
  ['тбилиси', 'Asia/Tbilisi', 0],
  ['ереван', 'Asia/Yerevan', 2],
  ['баку', 'Asia/Baku', 0],
  ['сингапур', 'Asia/Singapore', 2],
  ['пекин', 'Asia/Shanghai', 2],
  ['шанха', 'Asia/Shanghai', 2],
  ['амстердам', 'Europe/Amsterdam', 2],
  ['праг', 'Europe/Prague', 2],
  ['вен', 'Europe/Vienna', 1],
  ['рим', 'Europe/Rome', 1],
  ['мадрид', 'Europe/Madrid', 2],
];

export const russian: Lexicon = {
  language: 'ru',
  words,
  phrases,
  stems: CITIES.map(([stem, zone, extra]) => [stem, { k: 'zone', v: zone }, extra]),
  recurringWeekdayForm: (word) => /[ая]м$/.test(word),
};
