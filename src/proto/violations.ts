// google.rpc.BadRequest.FieldViolation in its ProtoJSON shape, shared by the
// ProtoJSON reader, the required-field validator and the error catalogue.
export interface FieldViolation {
  field: string;
  description: string;
}
