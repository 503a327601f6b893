// What the admin console shows of the configuration's life: the hash of the
// file in force (config-watch.ts: SHA-256 of its bytes, 12 hex digits), when
// it was loaded, and the last reload's outcome — applied, or rejected with
// its problems while the previous config stays in force. A gateway started
// without a file (the --upstream quick start, tests) has no hash.
export interface ReloadResult {
  at: string;
  outcome: 'success' | 'rejected';
  trigger: string;
  /** The hash of the bytes tried (undefined: the file could not be read). */
  hash: string | undefined;
  problems?: string[];
}

export interface ConfigStatus {
  hash: string | undefined;
  loadedAt: string;
  lastReload: ReloadResult | undefined;
}

export class ConfigState {
  /** The hash of the config file in force. */
  hash: string | undefined;
  /** When the config in force was loaded (ISO 8601). */
  loadedAt = new Date().toISOString();
  lastReload: ReloadResult | undefined;

  /** The file's config is in force (at start: trigger "start"). */
  applied(hash: string, trigger: string): void {
    this.hash = hash;
    this.loadedAt = new Date().toISOString();
    if (trigger !== 'start') this.lastReload = { at: this.loadedAt, outcome: 'success', trigger, hash };
  }

  rejected(problems: string[], hash: string | undefined, trigger: string): void {
    this.lastReload = { at: new Date().toISOString(), outcome: 'rejected', trigger, hash, problems };
  }

  /** As shown: the reload problems passed through `clean` (the console takes configured secrets out). */
  status(clean: (text: string) => string): ConfigStatus {
    const last = this.lastReload;
    return {
      hash: this.hash,
      loadedAt: this.loadedAt,
      lastReload: last?.problems ? { ...last, problems: last.problems.map(clean) } : last,
    };
  }
}
