// Requests to a session's writer from other processes (`conclave checkpoint <id>`): one JSON
// line each in `requests.jsonl`, appended without the lease (O_APPEND keeps concurrent posts
// whole), never in the journal; a torn last line is ignored.
import {
  newSessionRequest,
  type SessionRequest,
  type SessionRequestInput,
  sessionRequestSchema,
} from '@resume/core/spec';
import { errorCode, type WritableFile } from '../file-system/file-system.js';
import type { Layout } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';

const REQUESTS = 'requests.jsonl';

export interface SessionRequests {
  post(sessionId: string, input: SessionRequestInput): Promise<SessionRequest>;
  list(sessionId: string): Promise<SessionRequest[]>;
}

export function createSessionRequests(context: StoreContext, layout: Layout): SessionRequests {
  const { paths, plain, durable } = context;
  const requestsFile = (id: string) => paths.inSession(id, REQUESTS);

  return {
    async post(id, input) {
      context.files.refuseIfBroken();
      await layout.require(id);
      const request = newSessionRequest(input);
      const line = Buffer.from(`${JSON.stringify(request)}\n`, 'utf8');
      let file: WritableFile;
      try {
        file = await durable.openAppend(requestsFile(id));
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        file = await durable.createExclusive(requestsFile(id)).catch((created: unknown) => {
          if (errorCode(created) === 'EEXIST') return durable.openAppend(requestsFile(id));
          throw created;
        });
      }
      try {
        await file.write(line);
        if (!file.durableWrites) await file.datasync();
      } finally {
        await file.close();
      }
      return request;
    },

    async list(id) {
      await layout.require(id);
      let bytes: Buffer;
      try {
        bytes = await plain.readFile(requestsFile(id));
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return [];
        throw error;
      }
      return bytes
        .toString('utf8')
        .split('\n')
        .flatMap((line) => {
          if (line.trim() === '') return [];
          try {
            const parsed = sessionRequestSchema.safeParse(JSON.parse(line));
            return parsed.success ? [parsed.data] : [];
          } catch {
            return [];
          }
        });
    },
  };
}
