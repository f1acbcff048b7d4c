/**
 * Has the user finished? A decision from the words so far, made when a pause has just begun:
 * a complete question or command ends the turn after a short pause; a trailing conjunction,
 * filler or unfinished clause waits longer; anything else waits the usual time. Rules for
 * English and Chinese; a model (LiveKit's turn detector, Pipecat's Smart Turn) can stand
 * behind the same signature.
 */
export type TurnEnd = 'complete' | 'incomplete' | 'unsure';

/** Words after which an English sentence cannot end. */
const UNFINISHED_EN = new Set(
  (
    'and or but so because if when while than then that which who whose whom where whether ' +
    'the a an my your his her its our their this these those some any every no ' +
    'to of in on at for from with about into onto over under by as like ' +
    'is are was were be been am do does did can could will would should shall may might must ' +
    'um uh er erm hmm ah like also plus either neither nor'
  ).split(' '),
);
/** Endings of an English clause that goes on: "what about", "how about", "and then". */
const UNFINISHED_EN_PAIRS = ['what about', 'how about', 'and then', 'as well', 'such as', 'for example'];
/** Characters and words after which a Chinese sentence cannot end. */
const UNFINISHED_ZH = [
  '和',
  '跟',
  '与',
  '还有',
  '然后',
  '但是',
  '可是',
  '所以',
  '因为',
  '如果',
  '而且',
  '或者',
  '嗯',
  '呃',
  '那个',
  '这个',
  '就是',
  '的话',
  '的',
  '把',
  '给',
  '在',
  '对',
];
const CJK = /[\u3400-\u9fff]/u;

/** The last words judged: each guess is judged twice, by the gate and by endpointing, one after the other. */
let last: { text: string; end: TurnEnd } | undefined;

export function judgeTurnEnd(text: string): TurnEnd {
  if (last?.text !== text) last = { text, end: judge(text) };
  return last.end;
}

function judge(text: string): TurnEnd {
  const trimmed = text.trim();
  if (!trimmed) return 'unsure';
  if (/(\.\.\.|…|,|，|、|-|—|:|：|;|；)$/u.test(trimmed)) return 'incomplete';
  const bare = trimmed.replace(/[\s\p{P}]+$/u, '');
  if (CJK.test(bare.at(-1) ?? '')) {
    if (UNFINISHED_ZH.some((ending) => bare.endsWith(ending))) return 'incomplete';
    return /[。？！?!]$|[吗呢吧啊]$/u.test(trimmed) ? 'complete' : 'unsure';
  }
  const words = bare
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);
  const last = words.at(-1) ?? '';
  const lastTwo = words.slice(-2).join(' ');
  if (UNFINISHED_EN.has(last) || UNFINISHED_EN_PAIRS.includes(lastTwo)) return 'incomplete';
  return /[.?!]$/u.test(trimmed) ? 'complete' : 'unsure';
}
