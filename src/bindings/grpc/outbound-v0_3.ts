// The gRPC upstream client toward an A2A 0.3 agent (bridge §1, §3, §7): the
// 1.0 client (outbound.ts) in the 0.3 dialect — service a2a.v1.A2AService
// with its method names, 0.3 proto messages translated by the bridge, and
// 0.3 statuses (no details) read into the catalogue by method. ListTasks,
// which 0.3 lacks, is UnsupportedOperation before anything is sent.
import { errorFromV03Grpc } from '../../compat/v0_3/errors.js';
import { grpcRequestToV03, grpcResponseFromV03 } from '../../compat/v0_3/grpc.js';
import { v03Of } from '../../compat/v0_3/methods.js';
import { requestOf } from '../../core/envelope.js';
import type { GrpcUpstreamDialect } from './outbound.js';
import { fromServiceError } from './status.js';

export const GRPC_V03: GrpcUpstreamDialect = {
  path: (info) => v03Of(info.name).grpcPath,
  encode: (info, env) => [grpcRequestToV03(info.name, requestOf(env))],
  decode: (info, bytes) => grpcResponseFromV03(info.name, bytes),
  error: (info, e) => {
    // a 0.3 agent sends no google.rpc details: its status code says what happened, per method
    if (e.metadata?.get('grpc-status-details-bin').length) return fromServiceError(e);
    const err = errorFromV03Grpc(e.code, e.details ?? '', { method: info.name });
    // what the transport tells (refused, dropped after it was sent) is the same as for a 1.0 agent
    const transport = fromServiceError(e);
    err.connectionRefused = transport.connectionRefused;
    err.connectionReset = transport.connectionReset;
    err.answerCut = transport.answerCut;
    return err;
  },
};
