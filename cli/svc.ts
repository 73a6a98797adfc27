#!/usr/bin/env node
/**
 * `svc`: sign in, manage environments and develop partner apps (docs/cli.md).
 * Exit codes: 0 done, 1 failed, 2 usage errors.
 */
import { newProgram, runProgram } from './program';
import { addLoginCommand } from './commands/login';
import { addEnvCommands } from './commands/env';
import { addAppCommands } from './commands/app';

const program = newProgram('svc', 'The platform from the command line: sign in, environments, partner apps.');
addLoginCommand(program);
addEnvCommands(program);
addAppCommands(program);
void runProgram(program);
