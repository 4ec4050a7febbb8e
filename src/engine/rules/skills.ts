/** Skills and modes: empty skill lists and tags (0.x), duplicate ids, modes that are not media types. */
import { clip, quoted } from '../paths.ts';
import { arrayOf, recordOf, type RuleContext } from './context.ts';

/** type/subtype with optional parameters (RFC 6838 names; `*` allowed for wildcards). */
const mediaType = /^(?:[A-Za-z0-9][\w!#$&^.+-]*|\*)\/(?:[A-Za-z0-9][\w!#$&^.+-]*|\*)(?:\s*;.*)?$/;

/** Common bare words and the media type they usually mean. */
const likelyMediaType: Record<string, string> = {
  text: 'text/plain',
  json: 'application/json',
  data: 'application/json',
  structured: 'application/json',
  file: 'application/octet-stream',
  image: 'image/png',
  audio: 'audio/mpeg',
  video: 'video/mp4',
  markdown: 'text/markdown',
  html: 'text/html',
};

function checkModes(ctx: RuleContext, path: string, modes: unknown): void {
  arrayOf(modes).forEach((m, i) => {
    if (typeof m !== 'string' || mediaType.test(m)) return;
    const guess = Object.hasOwn(likelyMediaType, m.toLowerCase()) ? likelyMediaType[m.toLowerCase()] : undefined;
    const shown = quoted(m);
    const fix = guess ? `write "${guess}" instead of ${shown}` : `replace ${shown} with a media type such as "text/plain"`;
    ctx.report.add('modes.media-type', `${path}[${i}]`, `${shown} is not a media type`, fix);
  });
}

export function checkSkills(ctx: RuleContext): void {
  const { card } = ctx;
  const v1 = ctx.version === '1.0';
  checkModes(ctx, 'defaultInputModes', card.defaultInputModes);
  checkModes(ctx, 'defaultOutputModes', card.defaultOutputModes);
  const skills = arrayOf(card.skills);
  if (!v1 && Array.isArray(card.skills) && skills.length === 0) {
    ctx.report.add('skills.empty', 'skills', 'skills is empty: the card offers nothing to call');
  }
  const seen = new Map<string, number>();
  skills.forEach((s, i) => {
    const skill = recordOf(s);
    if (!skill) return;
    const tags = skill.tags;
    if (!v1 && Array.isArray(tags) && tags.length === 0) {
      ctx.report.add('skills.tags.empty', `skills[${i}].tags`, 'tags is empty');
    }
    if (typeof skill.id === 'string') {
      const first = seen.get(skill.id);
      if (first === undefined) seen.set(skill.id, i);
      else ctx.report.add('skills.id.unique', `skills[${i}].id`, `id ${quoted(skill.id)} repeats skills[${first}].id`, `give skills[${i}] its own id, e.g. ${JSON.stringify(`${clip(skill.id, 120)}-${i}`)}`);
    }
    checkModes(ctx, `skills[${i}].inputModes`, skill.inputModes);
    checkModes(ctx, `skills[${i}].outputModes`, skill.outputModes);
  });
}
