// Whether this process sends traces, from the standard OpenTelemetry variables. Read on every
// command that opens a store, so it loads nothing: the exporter and the SDK are imported only
// when an endpoint is set (see traced-store.ts).

export interface TracingSettings {
  /** Where spans go, for messages: the traces endpoint, else the base endpoint. */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Prompt, completion and tool text on the spans (off unless asked for). */
  captureContent: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

const value = (env: Env, name: string): string | undefined => {
  const text = env[name]?.trim();
  return text ? text : undefined;
};

/**
 * The settings when traces are wanted: an OTLP endpoint is set and the SDK is not disabled.
 * A protocol other than OTLP over HTTP is an error the caller shows (the run goes on untraced).
 */
export function tracingSettings(env: Env): TracingSettings | { problem: string } | null {
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!endpoint) return null;
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporters = value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporters !== undefined && !exporters.split(',').some((name) => name.trim() === 'otlp')) return null;
  const protocolName = 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
  const named = value(env, protocolName) ? protocolName : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (value(env, named) ?? 'http/protobuf').toLowerCase();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return {
      problem:
        `Traces are not sent: ${named}=${protocol} is not supported. ` +
        'Set it to http/protobuf (the default, usually port 4318) or http/json.',
    };
  }
  return {
    endpoint,
    protocol,
    captureContent: capturesContent(env),
  };
}

/** Whether the user asked for prompt, completion and tool text on spans (the GenAI conventions' switch). */
export const capturesContent = (env: Env): boolean =>
  value(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true';
