// historyLength toward A2A 0.3 agents (§3.2.4: 0 means no history; "the
// server MUST NOT return more messages than the provided value"): 0.3's gRPC
// request cannot say 0 (a plain int32: 0 is unset) and the 0.3 SDK's JSON-RPC
// server reads 0 as no limit (history.slice(-0)), so a 0.3 agent's answer
// may carry more history than the caller asked for. The gateway cuts it to
// the last `historyLength` messages; cutting never breaks the spec.
import type { AnyRequest, AnyResponse, MethodName } from '../../core/methods.js';
import type { GetTaskRequest, SendMessageRequest, SendMessageResponse, Task } from '../../gen/a2a_pb.js';

function cut(task: Task, limit: number | undefined): void {
  if (limit === undefined || task.history.length <= limit) return;
  task.history = limit <= 0 ? [] : task.history.slice(-limit);
}

/** A 0.3 agent's answer held to the caller's historyLength (the answer is changed in place). */
export function holdToHistoryLength(method: MethodName, request: AnyRequest, response: AnyResponse): void {
  if (method === 'GetTask') cut(response as Task, (request as GetTaskRequest).historyLength);
  else if (method === 'SendMessage') {
    const answer = response as SendMessageResponse;
    if (answer.payload.case === 'task') {
      cut(answer.payload.value, (request as SendMessageRequest).configuration?.historyLength);
    }
  }
}
