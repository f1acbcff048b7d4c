import { describe, expect, it } from 'vitest';
import { amixer, gainControl, pactl, withFallback, wpctl, type RunCommand } from '../../../src/tools/mixer.js';
import { volumeTool } from '../../../src/tools/volume.js';
import { FakePlayer } from '../../helpers/fakes.js';

/** A mixer command stand-in: answers from a table, and keeps what it was asked. */
function mixer(answers: Record<string, string | ((args: string[]) => string)>) {
  const asked: string[] = [];
  const run: RunCommand = (command, args) => {
    const line = `${command} ${args.join(' ')}`;
    asked.push(line);
    const key = Object.keys(answers).find((k) => line.startsWith(k));
    if (key === undefined) return Promise.resolve({ status: 1, stdout: '', stderr: `${command}: not found` });
    const answer = answers[key];
    return Promise.resolve({
      status: 0,
      stdout: typeof answer === 'function' ? answer(args) : (answer ?? ''),
      stderr: '',
    });
  };
  return { run, asked };
}

const call = async (control: Parameters<typeof volumeTool>[0], input: Record<string, unknown>): Promise<string> =>
  (await volumeTool(control, 10).run(input, new AbortController().signal)).text;

describe('the volume tool', () => {
  it('through wpctl: up by a step from the current level', async () => {
    let level = 0.4;
    const { run, asked } = mixer({
      'wpctl get-volume': () => `Volume: ${level.toFixed(2)}\n`,
      'wpctl set-volume': (args) => {
        level = Number(args[2]);
        return '';
      },
    });
    expect(await call(wpctl(run), { action: 'up' })).toBe('Volume 50% (wpctl).');
    expect(asked).toContain('wpctl set-volume @DEFAULT_AUDIO_SINK@ 0.50');
  });

  it('through pactl: set, and muted as pactl says', async () => {
    const { run, asked } = mixer({
      'pactl get-sink-volume':
        'Volume: front-left: 19661 /  30% / -31.37 dB,   front-right: 19661 /  30% / -31.37 dB\n',
      'pactl get-sink-mute': 'Mute: yes\n',
      'pactl set-sink': '',
    });
    expect(await call(pactl(run, 'hark_aec_sink'), { action: 'mute' })).toBe('Muted (pactl).');
    expect(asked).toContain('pactl set-sink-mute hark_aec_sink 1');
    await call(pactl(run), { action: 'set', percent: 130 });
    expect(asked).toContain('pactl set-sink-volume @DEFAULT_SINK@ 100%');
  });

  it('through amixer on the card of the playback device, using its output control', async () => {
    const { run, asked } = mixer({
      'amixer -c Headphones scontrols': "Simple mixer control 'PCM',0\n",
      'amixer -c Headphones sset PCM 35%': '  Mono: Playback -1500 [35%] [-15.00dB] [on]\n',
      'amixer -c Headphones sget PCM': '  Mono: Playback -1000 [45%] [-10.00dB] [on]\n',
    });
    const control = amixer(run, 'plughw:CARD=Headphones,DEV=0');
    expect(await call(control, { action: 'down' })).toBe('Volume 35% (amixer).');
    expect(asked.at(-1)).toBe('amixer -c Headphones sset PCM 35%');
  });

  it("falls back to hark's own gain when the mixer cannot be used, and the player scales what it plays", async () => {
    const { run } = mixer({});
    const player = new FakePlayer(1000, () => 0);
    const reasons: string[] = [];
    const control = withFallback(wpctl(run), gainControl(player), (error) => reasons.push(error.message));
    expect(await call(control, { action: 'set', percent: 50 })).toBe('Volume 50% (gain).');
    expect(reasons[0]).toMatch(/wpctl: not found/);
    player.write(Buffer.from(new Int16Array([1000, -2000]).buffer));
    expect([...new Int16Array(new Uint8Array(player.writes[0] as Buffer).buffer)]).toEqual([500, -1000]);
    expect(await call(control, { action: 'mute' })).toBe('Muted (gain).');
    expect(player.gain).toBe(0);
  });

  it("in a command that ends with the call, says that hark's own gain went with it; a mixer's setting lasts", async () => {
    const once = async (control: Parameters<typeof volumeTool>[0], input: Record<string, unknown>) =>
      (await volumeTool(control, 10, true).run(input, new AbortController().signal)).text;
    const gain = withFallback(wpctl(mixer({}).run), gainControl({ gain: 1 }), () => undefined);
    expect(await once(gain, { action: 'set', percent: 50 })).toBe(
      "Volume 50% (gain). No mixer answered, so this was hark's own playback gain, which lives only in this command: it ended with it, and the volume of a running hark did not change. Ask hark itself, or use the mixer of its player (wpctl, pactl or amixer).",
    );
    // Read in a command of its own, hark's gain is that command's, not a running hark's.
    expect(await once(gain, { action: 'get' })).toBe(
      "Volume 50% (gain). No mixer answered, so this is hark's own playback gain in this command, not the volume of a running hark. Ask hark itself, or use the mixer of its player (wpctl, pactl or amixer).",
    );
    const { run } = mixer({ 'wpctl get-volume': 'Volume: 0.50\n', 'wpctl set-volume': '' });
    expect(await once(wpctl(run), { action: 'set', percent: 50 })).toBe('Volume 50% (wpctl).');
  });

  it('refuses an action it does not know', async () => {
    await expect(call(gainControl({ gain: 1 }), { action: 'louder' })).rejects.toThrow(/action must be one of/);
  });
});
