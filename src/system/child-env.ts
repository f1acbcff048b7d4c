/** The environment for a child process (ffmpeg, recorder, player): the API key stays with hark. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.HARK_API_KEY;
  delete env.CREDENTIALS_DIRECTORY;
  return env;
}
