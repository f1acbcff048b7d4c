/**
 * hark's layering, checked in CI (`npm run lint`). From the ground up:
 *   contract/ (the service's published interface) on the audio headers it reads, system/, config/
 *   audio/, listen/, speak/, dialog/, voice/, service/ (the client), sim/ (the stand-in),
 *   home/ (what Home Assistant sees of hark, the announcements it waits to make, the hooks),
 *   web/ (the status page's server: it sees only what app/ hands it)
 *   pipeline/ (the voice loop's operators; outside capabilities only through ports)
 *   app/ (the composition with real components), cli/ (the commands)
 * Inside app/, from the ground up:
 *   adapters/ (the ports fitted with real components: the service, the listening thread, echo, the log)
 *   tools/ (the tools and MCP servers), doctor/ (hark doctor's checks), home/ (hooks, Home Assistant)
 *   page/ (the status page's glue), compose/ (the voice loop and the daemon, put together)
 */

/** Modules that compute and never do I/O: they may import only each other. */
const PURE = [
  '^src/contract/',
  '^src/dialog/',
  '^src/speak/',
  '^src/config/(schema|schema-parts|tools-schema|home-schema)\\.ts$',
  '^src/listen/(segmenter|monologue-cuts|pause-judge|speech-events|long-audio|transcript|wake-phrase|wake/wake-decider|onnx/protobuf-wire|onnx/onnx-constants|silero-network|stft-window|wake/mel-network|nn-rows|wake/embedding-stages|wake/embedding-stream|energy-vad|noise-floor|vad)\\.ts$',
  '^src/audio/(pcm|frames|wav-header|playback-clock|playback-error|mp3-duration|echo/fft)\\.ts$',
  '^src/system/as-error\\.ts$',
  '^src/home/discovery\\.ts$',
];
/** What the contract's rules read audio durations with (WAV, MP3): the floor beneath contract/. */
const AUDIO_HEADERS = '^src/audio/(pcm|wav-header|mp3-duration)\\.ts$';
/** Packages that do no I/O either: zod (schemas) and path (string handling). */
const PURE_PACKAGES = '^(node_modules/zod/|(node:)?path$)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one; split out what they share.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-is-the-ground-floor',
      severity: 'error',
      comment: "contract/ imports nothing of hark's but itself and the audio headers its rules read durations with; those import only each other.",
      from: { path: ['^src/contract/', AUDIO_HEADERS] },
      to: { path: '^src/', pathNot: ['^src/contract/', AUDIO_HEADERS] },
    },
    {
      name: 'pure-stays-pure',
      severity: 'error',
      comment: 'Pure modules (segmenter, sentence splitter, speakable filter, history, contract, ...) import nothing that does I/O.',
      from: { path: PURE },
      to: { pathNot: [...PURE, PURE_PACKAGES] },
    },
    {
      name: 'loop-state-stays-pure',
      severity: 'error',
      comment:
        "The voice loop's reducer does no I/O: at run time it needs only pure modules (it names the loop's events by type alone).",
      from: { path: '^src/pipeline/loop-state\\.ts$' },
      to: { pathNot: [...PURE, PURE_PACKAGES], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-app-and-cli-compose',
      severity: 'error',
      comment: 'Nothing below app/ imports app/, cli/ or pipeline/.',
      from: { path: '^src/', pathNot: '^src/(app|cli|pipeline)/' },
      to: { path: '^src/(app|cli|pipeline)/' },
    },
    {
      name: 'pipeline-below-app',
      severity: 'error',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'app-below-cli',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'pipeline-sees-only-ports',
      severity: 'error',
      comment: 'Operators reach outside capabilities through pipeline/ports.ts; real implementations are wired in app/.',
      from: { path: '^src/pipeline/' },
      to: { pathNot: [...PURE, '^src/pipeline/', '^node_modules/rxjs/', '^src/system/logger\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-is-composed-by-app',
      severity: 'error',
      comment: 'The status page is an outside capability like any other: app/ starts it and hands it the loop.',
      from: { path: '^src/', pathNot: '^src/(app|web)/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'web-sees-only-what-it-is-given',
      severity: 'error',
      comment: 'web/ serves what app/ gives it (events, controls); it reaches no audio, service or config loading of its own.',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: ['^src/web/', '^src/system/', ...PURE] },
    },
    {
      name: 'client-and-stand-in-share-only-the-contract',
      severity: 'error',
      comment: 'sim/ (the stand-in) and service/ (the client) judge requests by contract/ alone, so they cannot agree by accident.',
      from: { path: '^src/sim/' },
      to: { path: '^src/service/' },
    },
    {
      name: 'client-knows-no-stand-in',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^src/sim/' },
    },
    {
      name: 'app-adapters-stand-alone',
      severity: 'error',
      comment: 'A port adapter fits one real component to a port: it imports nothing else of app/.',
      from: { path: '^src/app/adapters/' },
      to: { path: '^src/app/', pathNot: '^src/app/adapters/' },
    },
    {
      name: 'app-tools-below-the-rest',
      severity: 'error',
      comment: 'The tools and MCP servers are started by the composition; they know nothing of the doctor, home or page.',
      from: { path: '^src/app/tools/' },
      to: { path: '^src/app/(compose|doctor|home|page)/' },
    },
    {
      name: 'app-doctor-below-page',
      severity: 'error',
      comment: 'The doctor checks what hark would use; the page asks it, never the other way round.',
      from: { path: '^src/app/doctor/' },
      to: { path: '^src/app/(compose|page|tools)/' },
    },
    {
      name: 'app-home-below-doctor-and-page',
      severity: 'error',
      comment: 'The home follows the loop; the doctor and the page read its status.',
      from: { path: '^src/app/home/' },
      to: { path: '^src/app/(doctor|page)/' },
    },
    {
      name: 'app-composition-on-top',
      severity: 'error',
      comment: 'compose/ puts the rest of app/ together: the rest may name its types (VoiceLoop), never run it.',
      from: { path: '^src/app/', pathNot: '^src/app/compose/' },
      to: { path: '^src/app/compose/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code (entry points and child-process scripts excepted).',
      from: {
        orphan: true,
        pathNot: ['\\.d\\.ts$', '^src/cli/main\\.ts$', '^src/audio/speaker-host\\.ts$', '^src/audio/recorders/'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.build.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      extensions: ['.ts', '.cts', '.js', '.cjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
