#!/usr/bin/env node
/**
 * `svc-theme`: build, check, preview and ship storefront themes (docs/cli.md).
 * Exit codes: 0 done, 1 failed or findings with errors, 2 usage errors.
 */
import { newProgram, runProgram } from './program';
import { addLocalThemeCommands } from './commands/theme-local';
import { addDevCommand } from './commands/theme-dev';
import { addAuditCommand } from './commands/theme-audit';
import { addPackageCommands } from './commands/theme-packages';

const program = newProgram('svc-theme', 'Storefront themes: create, validate, preview, audit, push, deploy and pull theme packages.');
addLocalThemeCommands(program);
addDevCommand(program);
addAuditCommand(program);
addPackageCommands(program);
void runProgram(program);
