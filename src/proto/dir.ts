// Where the project's .proto files are at run time (proto/ beside src/ or
// dist/): gRPC reflection serves descriptors loaded from them.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's proto/ folder (two levels up from src/proto or dist/proto). */
export const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'proto');
