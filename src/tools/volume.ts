import type { VolumeControl, VolumeState } from './mixer.js';
import { ToolError, numberArg, stringArg, type Tool } from './tool.js';

const ACTIONS = ['get', 'set', 'up', 'down', 'mute', 'unmute'] as const;
const ASK_HARK = 'Ask hark itself, or use the mixer of its player (wpctl, pactl or amixer).';
const GONE_WITH_COMMAND = ` No mixer answered, so this was hark's own playback gain, which lives only in this command: it ended with it, and the volume of a running hark did not change. ${ASK_HARK}`;
const ONLY_THIS_COMMAND = ` No mixer answered, so this is hark's own playback gain in this command, not the volume of a running hark. ${ASK_HARK}`;

/**
 * `volume`: the loudness of hark's own output, through `control`. In a process that ends with the
 * call (`hark tools call`, `oneShot`), hark's own gain is that process's alone: the answer says
 * so, and that a running hark's volume is another (a change did not reach it).
 */
export function volumeTool(control: VolumeControl, stepPercent: number, oneShot = false): Tool {
  return {
    name: 'volume',
    description: `The volume of the assistant's own voice and sounds: get it, set it (0 to 100 percent), turn it up or down (by ${stepPercent} percent unless a step is given), mute or unmute.`,
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...ACTIONS], description: 'What to do.' },
        percent: { type: 'number', description: 'For set: the level, 0 to 100. For up and down: the step.' },
      },
      required: ['action'],
    },
    source: 'built-in',
    async run(input) {
      const action = stringArg(input, 'action');
      const percent = numberArg(input, 'percent');
      const said = (state: VolumeState): { text: string } => {
        const caveat = oneShot && !control.lasts ? (action === 'get' ? ONLY_THIS_COMMAND : GONE_WITH_COMMAND) : '';
        return { text: `${state.muted ? 'Muted' : `Volume ${state.percent}%`} (${control.name}).${caveat}` };
      };
      switch (action as (typeof ACTIONS)[number] | undefined) {
        case 'get':
          return said(await control.get());
        case 'set':
          if (percent === undefined) throw new ToolError('set needs percent, 0 to 100');
          return said(await control.set(percent));
        case 'up':
        case 'down': {
          const now = await control.get();
          const step = (percent ?? stepPercent) * (action === 'up' ? 1 : -1);
          if (now.muted && action === 'up') await control.mute(false);
          return said(await control.set(now.percent + step));
        }
        case 'mute':
          return said(await control.mute(true));
        case 'unmute':
          return said(await control.mute(false));
        default:
          throw new ToolError(`action must be one of ${ACTIONS.join(', ')}`);
      }
    },
  };
}
