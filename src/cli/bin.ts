#!/usr/bin/env node
// Entry point of the `a2a-gateway` command (package.json "bin").
import '../util/base64.js'; // before @bufbuild/protobuf loads
import { main } from './main.js';

void main(process.argv.slice(2));
