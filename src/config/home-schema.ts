import * as z from 'zod/mini';
import { ms, nullableString, section } from './schema-parts.js';
import { PLACEHOLDER } from './tools-schema.js';

/** A topic level hark publishes under: no MQTT wildcards, no empty levels, no leading or trailing slash. */
const TOPIC = /^[^#+/\s]+(\/[^#+/\s]+)*$/;
const topic = (what: string) =>
  z.string().check(z.regex(TOPIC, `${what}: levels split by "/", without "+", "#" or spaces`));

const brokerUrl = z.url({
  protocol: /^mqtts?$/,
  error: 'an mqtt:// or mqtts:// URL, such as mqtt://homeassistant.local:1883',
});

/**
 * `mqtt`: the broker Home Assistant reads (MQTT discovery). Off while `url` is null. The password
 * is never written in a file: only a `${NAME}` filled in from the environment or a systemd
 * credential, and never in the URL.
 */
export const mqtt = section({
  url: z._default(
    z.nullable(
      brokerUrl.check(
        z.refine((url) => !/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url), {
          message:
            'a password is never written in the URL: write mqtt.password: ${SOME_NAME} and give SOME_NAME in the environment or as a systemd credential',
        }),
      ),
    ),
    null,
  ),
  username: nullableString,
  password: z._default(
    z.nullable(
      z.string().check(
        z.refine((value) => new RegExp(`^${PLACEHOLDER.source}$`).test(value), {
          message:
            'a password is never written in a config file: write ${SOME_NAME} and give SOME_NAME in the environment or as a systemd credential',
        }),
      ),
    ),
    null,
  ),
  discoveryPrefix: z._default(topic('the discovery prefix'), 'homeassistant'),
  /** Default `hark/<hostname>`. */
  baseTopic: z._default(z.nullable(topic('the base topic')), null),
  /** Default `hark <hostname>`. */
  deviceName: nullableString,
  /** An announcement or question kept across a restart for longer than this is dropped, and the caller told. */
  keepAnnouncementsMs: ms(10_000, 86_400_000, 600_000),
});

const hook = nullableString;

/** `hooks`: a command run at each moment (the board's lights, a sound), through `sh -c`. */
export const hooks = section({
  timeoutMs: ms(100, 60_000, 5000),
  wake: hook,
  listening: hook,
  thinking: hook,
  speaking: hook,
  idle: hook,
  error: hook,
  muted: hook,
});

/** The moments a hook can be run at, in the order the file lists them. */
export const HOOK_MOMENTS = ['wake', 'listening', 'thinking', 'speaking', 'idle', 'error', 'muted'] as const;
export type HookMoment = (typeof HOOK_MOMENTS)[number];
