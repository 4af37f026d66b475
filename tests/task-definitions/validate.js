#!/usr/bin/env node
// Validates task-definitions/*.json offline (no AWS account, no network):
//   1. against the input shape of ECS RegisterTaskDefinition, with the API model and parameter
//      validator of the pinned aws-sdk v2;
//   2. against what the hostprobe binary really accepts (read from its --help), the Dockerfile,
//      and the ECS and Fargate rules the API model does not express.
// Then it breaks good definitions in memory, one way at a time, and asserts that each is
// rejected by the check meant to catch it: a check that cannot fail proves nothing.
//
//   node validate.js <path-to-hostprobe-binary>
'use strict';

// aws-sdk v2 prints an end-of-support notice on every run; it would drown the report.
process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const AWS = require('aws-sdk');

const REPO = path.resolve(__dirname, '..', '..');
const DEFINITIONS_DIR = path.join(REPO, 'task-definitions');
const DOCKERFILE = path.join(REPO, 'Dockerfile');

const HOSTPROBE_SHUTDOWN_SECONDS = 2;  // README: on SIGTERM it exits within 2 s
const FARGATE_MAX_STOP_TIMEOUT = 120;
const ECS_DEFAULT_HEALTHCHECK_TIMEOUT = 5;
const HEALTHCHECK_LIMITS = { interval: [5, 300], timeout: [2, 60], retries: [1, 10], startPeriod: [0, 300] };
const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@\/-]+$/;

// Fargate's task cpu (CPU units) → the memory sizes (MiB) it may have, from the AWS documentation
// ("Task CPU and memory", also repeated in the RegisterTaskDefinition reference).
const FARGATE_MEMORY_BY_CPU = {
  256: [512, 1024, 2048],
  512: range(1024, 4096, 1024),
  1024: range(2048, 8192, 1024),
  2048: range(4096, 16384, 1024),
  4096: range(8192, 30720, 1024),
  8192: range(16384, 61440, 4096),
  16384: range(32768, 122880, 8192),
};

function range(first, last, step) {
  const values = [];
  for (let value = first; value <= last; value += step) values.push(value);
  return values;
}

// ---- What the binary and the image really are -------------------------------------------------

function helpText(binary, ...command) {
  return execFileSync(binary, [...command, '--help'], { encoding: 'utf8' });
}

function mustMatch(text, pattern, what) {
  const match = text.match(pattern);
  if (!match) throw new Error(`cannot find ${what} in:\n${text}`);
  return match;
}

function readBinaryFacts(binary) {
  const top = helpText(binary);
  const serve = helpText(binary, 'serve');
  const healthcheck = helpText(binary, 'healthcheck');
  const run = helpText(binary, 'run');
  const survey = helpText(binary, 'survey');

  const commandsSection = mustMatch(top, /^Commands:\n((?: {2}.*\n)+)/m, "'Commands:' in hostprobe --help")[1];
  const probesSection = mustMatch(run, /^Probes:\n([\s\S]*)/m, "'Probes:' in hostprobe run --help")[1];
  const envNamesOf = (...texts) => new Set(texts
    .flatMap((text) => [...text.matchAll(/^\s+env ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1])));
  const optionsOf = (text) => new Set([...text.matchAll(/^ {2}--([\w-]+)/gm)].map((m) => m[1]));
  const envNames = envNamesOf(serve, healthcheck, run, survey);
  return {
    commands: new Set([...commandsSection.matchAll(/^ {2}([a-z][\w-]*) /gm)].map((m) => m[1])),
    probes: new Set([...probesSection.matchAll(/^ {2}([a-z][\w-]*): /gm)].map((m) => m[1])),
    envNames,
    // What the hostprobe container's own command reads: `healthcheck` runs beside either.
    commandFacts: {
      serve: { envNames: envNamesOf(serve, healthcheck), options: optionsOf(serve) },
      survey: { envNames: envNamesOf(survey, healthcheck), options: optionsOf(survey) },
    },
    defaultListen: mustMatch(serve, /--listen .*\(default ([^)\s]+)\)/, 'the --listen default in serve --help')[1],
    healthcheckOptions: new Set([...healthcheck.matchAll(/^ {2}--([\w-]+)/gm)].map((m) => m[1])),
    healthcheckDefaultTimeout: Number(
      mustMatch(healthcheck, /--timeout .*\(default ([\d.]+)\)/, 'the --timeout default in healthcheck --help')[1]),
  };
}

function readDockerfileFacts(file) {
  const text = fs.readFileSync(file, 'utf8');
  const exposed = new Set([...text.matchAll(/^EXPOSE\s+(.+)$/gm)]
    .flatMap((m) => m[1].trim().split(/\s+/)).map((port) => Number(port.split('/')[0])));
  const uids = new Set([...text.matchAll(/^USER\s+(\d+)/gm)].map((m) => m[1]));
  if (exposed.size !== 1) throw new Error(`${file}: expected one EXPOSEd port in every stage, found ${[...exposed]}`);
  if (uids.size !== 1) throw new Error(`${file}: expected one numeric USER in every stage, found ${[...uids]}`);
  const entryPoints = new Set([...text.matchAll(/^ENTRYPOINT\s+(\[.*\])\s*$/gm)].map((m) => m[1]));
  if (entryPoints.size !== 1) throw new Error(`${file}: expected one exec-form ENTRYPOINT in every stage, found ${[...entryPoints]}`);
  return { exposedPort: [...exposed][0], uid: [...uids][0], entryPoint: JSON.parse([...entryPoints][0]) };
}

// ---- The RegisterTaskDefinition shape -----------------------------------------------------------

// The model aws-sdk v2 ships (apis/*.min.json) has no enum values, so "AWSVPC" or "tcP" would
// pass. Its typings (clients/ecs.d.ts) still list them (`type NetworkMode = "bridge"|...|string`);
// walk the model and the typings side by side and put each enum on its model shape.
function readTypings(file) {
  const text = fs.readFileSync(file, 'utf8');
  const typings = { enums: new Map(), listElements: new Map(), mapValues: new Map(), structures: new Map() };
  for (const m of text.matchAll(/export type (\w+) = ((?:"[^"]*"\|)+)string;/g)) {
    typings.enums.set(m[1], [...m[2].matchAll(/"([^"]*)"/g)].map((value) => value[1]));
  }
  for (const m of text.matchAll(/export type (\w+) = (\w+)\[\];/g)) typings.listElements.set(m[1], m[2]);
  for (const m of text.matchAll(/export type (\w+) = \{\[key: string\]: (\w+)\};/g)) typings.mapValues.set(m[1], m[2]);
  for (const m of text.matchAll(/export interface (\w+) \{\n([\s\S]*?)\n {2}\}/g)) {
    typings.structures.set(m[1], new Map([...m[2].matchAll(/^ {4}(\w+)\??: (\w+);$/gm)].map((x) => [x[1], x[2]])));
  }
  return typings;
}

function addEnums(model, memberRef, typeName, typings, visited) {
  const shape = memberRef.shape ? model.shapes[memberRef.shape] : memberRef;
  if (!typeName || visited.has(shape)) return 0;
  visited.add(shape);
  if (typings.enums.has(typeName)) {
    shape.enum = typings.enums.get(typeName);
    return 1;
  }
  let added = 0;
  if (shape.type === 'structure') {
    const members = typings.structures.get(typeName) || new Map();
    for (const [name, member] of Object.entries(shape.members)) {
      added += addEnums(model, member, members.get(name), typings, visited);
    }
  } else if (shape.type === 'list') {
    added += addEnums(model, shape.member, typings.listElements.get(typeName), typings, visited);
  } else if (shape.type === 'map') {
    added += addEnums(model, shape.value, typings.mapValues.get(typeName), typings, visited);
  }
  return added;
}

function loadRegisterTaskDefinitionInput() {
  const sdkDir = path.dirname(require.resolve('aws-sdk/package.json'));
  const version = require('aws-sdk/package.json').version;
  const model = JSON.parse(fs.readFileSync(path.join(sdkDir, 'apis', 'ecs-2014-11-13.min.json'), 'utf8'));
  const typings = readTypings(path.join(sdkDir, 'clients', 'ecs.d.ts'));
  const operation = model.operations.RegisterTaskDefinition;
  const enumCount = addEnums(model, operation.input, 'RegisterTaskDefinitionRequest', typings, new Set());
  if (enumCount === 0) throw new Error(`found no enums in aws-sdk ${version}'s typings: has their layout changed?`);
  const api = new AWS.Model.Api(model);
  return {
    shape: api.operations.registerTaskDefinition.input,
    validator: new AWS.ParamValidator({ min: true, max: true, pattern: true, enum: true }),
    description: `aws-sdk ${version}, ${enumCount} enums from its typings`,
  };
}

// The SDK's validator accepts "128" where the model says integer (it casts); the ECS API and the
// AWS CLI's --cli-input-json do not.
function numbersGivenAsText(shape, value, where) {
  if (value === undefined) return [];
  if (shape.type === 'integer' || shape.type === 'float') {
    const valid = typeof value === 'number' && (shape.type === 'float' || Number.isInteger(value));
    return valid ? [] : [`${where} must be a JSON ${shape.type}, not ${JSON.stringify(value)}`];
  }
  if (value === null || typeof value !== 'object') return [];
  if (shape.type === 'structure') {
    return Object.entries(value)
      .flatMap(([key, member]) => (shape.members[key] ? numbersGivenAsText(shape.members[key], member, `${where}.${key}`) : []));
  }
  if (shape.type === 'list' && Array.isArray(value)) {
    return value.flatMap((member, i) => numbersGivenAsText(shape.member, member, `${where}[${i}]`));
  }
  if (shape.type === 'map') {
    return Object.entries(value).flatMap(([key, member]) => numbersGivenAsText(shape.value, member, `${where}['${key}']`));
  }
  return [];
}

// ---- Helpers over a definition --------------------------------------------------------------------

const containersOf = (definition) => definition.containerDefinitions || [];
const isHostprobe = (container) => String(container.image || '').includes('hostprobe');
const hostprobeOf = (definition) => containersOf(definition).find(isHostprobe);
const environmentOf = (container) => container.environment || [];
const runsOnFargate = (definition) => (definition.requiresCompatibilities || []).includes('FARGATE');

function variable(container, name) {
  const entry = environmentOf(container).find((e) => e.name === name);
  return entry ? entry.value : undefined;
}

function listenPort(container, facts) {
  const listen = variable(container, 'HOSTPROBE_LISTEN') ?? facts.defaultListen;
  return Number(listen.slice(listen.lastIndexOf(':') + 1));
}

const isWholeNumberText = (text) => /^\d+$/.test(String(text));

// What the container runs: its entryPoint (else the image's ENTRYPOINT) followed by its command,
// as ECS assembles them. `hostprobe serve ...` -> { executable, subcommand: 'serve', args }.
function commandLineOf(container, image) {
  const words = [...(container.entryPoint || image.entryPoint), ...(container.command || [])].map(String);
  const [executable, subcommand, ...args] = words;
  return { executable, subcommand, args };
}

// 'serve' or 'survey' for a hostprobe container (others: null, their own checks apply).
function hostprobeCommand(container, image) {
  if (!container || !isHostprobe(container)) return null;
  return commandLineOf(container, image).subcommand;
}

// ---- Checks: each returns its problems; none means it passes ----------------------------------

function checkInputShape(definition, context) {
  const { shape, validator } = context.registerInput;
  const problems = [];
  try {
    validator.validate(shape, definition);
  } catch (error) {
    problems.push(...(error.errors || [error]).map((e) => e.message));
  }
  return problems.concat(numbersGivenAsText(shape, definition, 'params'));
}

function checkHostprobeContainer(definition) {
  const count = containersOf(definition).filter(isHostprobe).length;
  return count === 1 ? [] : [`expected one container whose image names hostprobe, found ${count}`];
}

// What ECS refuses at registration but the API model leaves optional.
function checkContainers(definition) {
  const problems = [];
  const names = containersOf(definition).map((c) => c.name);
  if (names.some((name) => !name)) problems.push('a container has no name');
  for (const name of new Set(names.filter((n, i) => n && names.indexOf(n) !== i))) problems.push(`two containers are named ${name}`);
  for (const container of containersOf(definition)) {
    if (!container.image) problems.push(`${container.name}: no image`);
  }
  // essential defaults to true.
  if (!containersOf(definition).some((c) => c.essential !== false)) problems.push('no container is essential');
  return problems;
}

// HOSTPROBE_PARAMS: {"probe": {...}} for known probes; storage probes' directories allowlisted.
function paramsProblems(container, text, facts) {
  let params;
  try {
    params = JSON.parse(text);
  } catch (error) {
    return [`${container.name}: HOSTPROBE_PARAMS is not JSON: ${error.message}`];
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    return [`${container.name}: HOSTPROBE_PARAMS must be a JSON object of probe names`];
  }
  const problems = [];
  const allowed = (variable(container, 'HOSTPROBE_DISK_DIRS') || '').split(',').filter(Boolean);
  for (const [probe, value] of Object.entries(params)) {
    if (!facts.probes.has(probe)) problems.push(`${container.name}: HOSTPROBE_PARAMS names '${probe}', not a probe`);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${container.name}: HOSTPROBE_PARAMS: the params of '${probe}' must be an object`);
      continue;
    }
    const directory = value.directory;
    if (directory !== undefined && !allowed.some((dir) => directory === dir || directory.startsWith(`${dir}/`))) {
      problems.push(`${container.name}: HOSTPROBE_PARAMS: ${probe} writes to ${directory}, outside HOSTPROBE_DISK_DIRS`);
    }
  }
  return problems;
}

function checkEnvironment(definition, { facts, image }) {
  const problems = [];
  for (const container of containersOf(definition)) {
    const command = hostprobeCommand(container, image);
    const readable = (facts.commandFacts[command] || facts).envNames;
    const names = environmentOf(container).map((e) => e.name);
    for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i))) {
      problems.push(`${container.name}: ${name} is set twice`);
    }
    for (const { name, value } of environmentOf(container)) {
      if (name === 'ECS_CONTAINER_METADATA_URI_V4') problems.push(`${container.name}: ${name} is set by ECS itself`);
      if (!name.startsWith('HOSTPROBE_')) continue;
      if (!readable.has(name)) {
        const known = [...readable].filter((n) => n.startsWith('HOSTPROBE_'));
        const who = command ? `hostprobe ${command}` : 'hostprobe';
        problems.push(`${container.name}: ${who} does not read ${name} (its --help lists ${known.join(', ')})`);
      }
      // hostprobe ignores an empty variable; one in a task definition is a mistake.
      if (value === '') problems.push(`${container.name}: ${name} is empty; leave it out instead`);
    }
    const params = variable(container, 'HOSTPROBE_PARAMS');
    if (params !== undefined) problems.push(...paramsProblems(container, params, facts));
    const probeLists = [
      ['HOSTPROBE_RUN_ON_START', (item) => item],
      ['HOSTPROBE_PROBES', (item) => item],
      ['HOSTPROBE_SCHEDULE', (item) => item.split('=')[0]],
    ];
    for (const [name, probeOf] of probeLists) {
      const value = variable(container, name);
      if (value === undefined) continue;
      for (const probe of value.split(',').map((item) => probeOf(item.trim()))) {
        if (!facts.probes.has(probe)) {
          problems.push(`${container.name}: ${name} names '${probe}', not a probe of hostprobe run --help (${[...facts.probes].join(', ')})`);
        }
      }
    }
  }
  return problems;
}

function checkHealthCheck(definition, { facts, image }, container) {
  const healthCheck = container.healthCheck;
  // A survey serves no HTTP: `hostprobe healthcheck` would fail, and the task ends by itself.
  if (hostprobeCommand(container, image) === 'survey') {
    return healthCheck ? ['hostprobe survey serves no /healthz: a healthCheck can only fail'] : [];
  }
  if (!healthCheck) return ['no healthCheck'];
  const [form, executable, command, ...args] = healthCheck.command || [];
  const problems = [];
  if (form !== 'CMD') problems.push(`command starts with ${JSON.stringify(form)}; the image has no shell, so only exec form "CMD" runs`);
  if (path.posix.basename(String(executable)) !== 'hostprobe') problems.push(`runs ${JSON.stringify(executable)}, not hostprobe`);
  if (command !== 'healthcheck') problems.push(`runs 'hostprobe ${command}', not 'hostprobe healthcheck'`);
  if (!facts.commands.has('healthcheck')) problems.push(`hostprobe --help lists no healthcheck command (only ${[...facts.commands].join(', ')})`);
  for (const option of args.filter((a) => String(a).startsWith('--')).map((a) => a.slice(2).split('=')[0])) {
    if (!facts.healthcheckOptions.has(option)) problems.push(`hostprobe healthcheck has no --${option}`);
  }
  for (const [field, [min, max]] of Object.entries(HEALTHCHECK_LIMITS)) {
    const value = healthCheck[field];
    if (value !== undefined && !(value >= min && value <= max)) problems.push(`${field} ${value} is outside ECS's ${min}..${max}`);
  }
  // ECS must wait longer than hostprobe does, so the log says why the agent was unhealthy.
  const timeoutArg = args.indexOf('--timeout');
  const ownTimeout = Number(timeoutArg >= 0 ? args[timeoutArg + 1]
    : variable(container, 'HOSTPROBE_HEALTHCHECK_TIMEOUT') ?? facts.healthcheckDefaultTimeout);
  const ecsTimeout = healthCheck.timeout ?? ECS_DEFAULT_HEALTHCHECK_TIMEOUT;
  if (!(ecsTimeout > ownTimeout)) problems.push(`ECS timeout ${ecsTimeout} s does not exceed hostprobe healthcheck's own ${ownTimeout} s`);
  return problems;
}

function checkPort(definition, { facts, image }, container) {
  if (hostprobeCommand(container, image) === 'survey') {
    const problems = [];
    if ((container.portMappings || []).length > 0) problems.push('hostprobe survey listens on no port, yet there are portMappings');
    for (const label of Object.keys(container.dockerLabels || {}).filter((l) => /PROMETHEUS/.test(l))) {
      problems.push(`label ${label}: hostprobe survey serves no /metrics to scrape`);
    }
    return problems;
  }
  const port = listenPort(container, facts);
  const problems = [];
  if (!(port > 0)) problems.push(`HOSTPROBE_LISTEN must name a fixed port, not ${port}`);
  if (port !== image.exposedPort) problems.push(`listens on ${port} but the Dockerfile EXPOSEs ${image.exposedPort}`);
  const mappings = container.portMappings || [];
  if (mappings.length === 0) problems.push(`no portMappings for ${port}`);
  for (const mapping of mappings) {
    if (mapping.containerPort !== port) problems.push(`containerPort ${mapping.containerPort} is not the listening port ${port}`);
    if ((mapping.protocol || 'tcp') !== 'tcp') problems.push(`protocol ${mapping.protocol} is not tcp`);
    // awsvpc and host networking cannot remap ports; bridge would (but no definition here uses it).
    if (mapping.hostPort !== undefined && mapping.hostPort !== mapping.containerPort && definition.networkMode !== 'bridge') {
      problems.push(`hostPort ${mapping.hostPort} differs from containerPort ${mapping.containerPort} in ${definition.networkMode} mode`);
    }
  }
  for (const [label, value] of Object.entries(container.dockerLabels || {})) {
    if (/PROMETHEUS.*_PORT$/.test(label) && value !== String(port)) problems.push(`label ${label}=${value} is not the listening port ${port}`);
    if (/PROMETHEUS.*_PATH$/.test(label) && value !== '/metrics') problems.push(`label ${label}=${value} is not /metrics`);
  }
  return problems;
}

// The hostprobe container runs `hostprobe serve` or `hostprobe survey` with options that command's
// --help lists; survey's --probes name probes of `hostprobe run --help`.
function checkCommand(definition, { facts, image }, container) {
  const { executable, subcommand, args } = commandLineOf(container, image);
  const problems = [];
  if (path.posix.basename(String(executable)) !== 'hostprobe') problems.push(`runs ${JSON.stringify(executable)}, not hostprobe`);
  if (!facts.commandFacts[subcommand]) {
    problems.push(`runs 'hostprobe ${subcommand}', neither serve nor survey`);
    return problems;
  }
  if (!facts.commands.has(subcommand)) problems.push(`hostprobe --help lists no ${subcommand} command`);
  const { options } = facts.commandFacts[subcommand];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      problems.push(`hostprobe ${subcommand} takes no argument ${JSON.stringify(arg)}`);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s);
    if (!options.has(name)) {
      problems.push(`hostprobe ${subcommand} has no --${name}`);
      continue;
    }
    const value = inline ?? args[i + 1];
    if (inline === undefined) i += 1;
    if (name === 'probes') {
      for (const probe of String(value).split(',').map((p) => p.trim())) {
        if (!facts.probes.has(probe)) problems.push(`--probes names '${probe}', not a probe of hostprobe run --help`);
      }
    }
    if (name === 'params') {
      problems.push(...paramsProblems(container, String(value), facts).map((p) => p.replace('HOSTPROBE_PARAMS', '--params')));
    }
  }
  return problems;
}

function checkHardening(definition, { image }, container) {
  const problems = [];
  if (container.readonlyRootFilesystem !== true) problems.push('readonlyRootFilesystem is not true');
  if (String(container.user).split(':')[0] !== image.uid) problems.push(`user ${JSON.stringify(container.user)} is not the image's uid ${image.uid}`);
  const capabilities = (container.linuxParameters || {}).capabilities || {};
  if (!(capabilities.drop || []).includes('ALL')) problems.push('capabilities do not drop ALL');
  if ((capabilities.add || []).length > 0) problems.push(`capabilities add ${capabilities.add}`);
  if (container.privileged) problems.push('privileged');
  return problems;
}

function checkStopTimeout(definition, context, container) {
  const timeout = container.stopTimeout;
  return timeout > HOSTPROBE_SHUTDOWN_SECONDS && timeout <= FARGATE_MAX_STOP_TIMEOUT ? []
    : [`stopTimeout ${timeout} should be set above hostprobe's ${HOSTPROBE_SHUTDOWN_SECONDS} s shutdown and at most ${FARGATE_MAX_STOP_TIMEOUT} s`];
}

function checkLogging(definition) {
  const problems = [];
  for (const container of containersOf(definition)) {
    const logging = container.logConfiguration || {};
    if (logging.logDriver !== 'awslogs') {
      problems.push(`${container.name}: logDriver ${logging.logDriver} is not awslogs`);
      continue;
    }
    for (const option of ['awslogs-group', 'awslogs-region', 'awslogs-stream-prefix']) {
      if (!(logging.options || {})[option]) problems.push(`${container.name}: no ${option}`);
    }
  }
  return problems;
}

function checkRoles(definition) {
  const problems = [];
  // Pulling from a private ECR repository and writing to CloudWatch Logs both need it.
  if (!definition.executionRoleArn) problems.push('no executionRoleArn');
  for (const field of ['executionRoleArn', 'taskRoleArn']) {
    const arn = definition[field];
    if (arn !== undefined && !ROLE_ARN.test(arn)) problems.push(`${field} ${arn} is not an IAM role ARN`);
  }
  return problems;
}

function checkTaskSize(definition) {
  const problems = [];
  if (runsOnFargate(definition)) {
    if (definition.networkMode !== 'awsvpc') problems.push(`Fargate needs networkMode awsvpc, not ${definition.networkMode}`);
    const platform = definition.runtimePlatform || {};
    if (platform.operatingSystemFamily !== 'LINUX') problems.push('runtimePlatform.operatingSystemFamily is not LINUX');
    const { cpu, memory } = definition;
    if (!isWholeNumberText(cpu) || !isWholeNumberText(memory)) {
      problems.push(`Fargate needs task cpu and memory as CPU units and MiB, got ${cpu} and ${memory}`);
    } else if (!(FARGATE_MEMORY_BY_CPU[cpu] || []).includes(Number(memory))) {
      const allowed = FARGATE_MEMORY_BY_CPU[cpu];
      problems.push(`cpu ${cpu} with memory ${memory} is not a Fargate size` + (allowed ? ` (cpu ${cpu} takes ${allowed.join(', ')})` : ''));
    }
  } else if (definition.memory === undefined) {
    for (const container of containersOf(definition)) {
      if (!container.memory && !container.memoryReservation) {
        problems.push(`${container.name}: without task memory, EC2 needs container memory or memoryReservation`);
      }
    }
  }
  return problems;
}

function checkContainerSizes(definition) {
  const problems = [];
  const containers = containersOf(definition);
  const sum = (field) => containers.reduce((total, c) => total + (field(c) || 0), 0);
  const limits = [
    ['cpu', definition.cpu, sum((c) => c.cpu)],
    ['memory', definition.memory, sum((c) => c.memory || c.memoryReservation)],
  ];
  for (const [what, taskLimit, containersTotal] of limits) {
    if (taskLimit !== undefined && containersTotal > Number(taskLimit)) {
      problems.push(`containers ask ${containersTotal} ${what}, the task has ${taskLimit}`);
    }
  }
  return problems;
}

function checkDiskDirs(definition, context, container) {
  const value = variable(container, 'HOSTPROBE_DISK_DIRS');
  if (value === undefined) return [];
  const volumes = new Set((definition.volumes || []).map((v) => v.name));
  const problems = [];
  for (const directory of value.split(',').map((d) => d.trim())) {
    const mount = (container.mountPoints || []).find(
      (m) => directory === m.containerPath || directory.startsWith(`${m.containerPath}/`));
    if (!mount) {
      problems.push(`${directory} is not inside a mountPoint of ${container.name}`);
    } else {
      if (mount.readOnly) problems.push(`${mount.containerPath} is mounted read-only`);
      if (!volumes.has(mount.sourceVolume)) problems.push(`${mount.containerPath} mounts undeclared volume ${mount.sourceVolume}`);
    }
  }
  return problems;
}

function checkEfsVolumes(definition) {
  const problems = [];
  for (const volume of definition.volumes || []) {
    const efs = volume.efsVolumeConfiguration;
    if (!efs) continue;
    const authorization = efs.authorizationConfig || {};
    const where = `volume ${volume.name}`;
    if (!/^fs-[0-9a-f]+$/.test(efs.fileSystemId)) problems.push(`${where}: fileSystemId ${efs.fileSystemId} is not fs-<hex>`);
    // ECS's EFS rules: IAM authorization and access points both need TLS; an access point sets the
    // root itself; IAM authorization uses the task role.
    const usesTls = authorization.iam === 'ENABLED' || authorization.accessPointId !== undefined;
    if (usesTls && efs.transitEncryption !== 'ENABLED') problems.push(`${where}: IAM or an access point needs transitEncryption ENABLED`);
    if (authorization.accessPointId !== undefined) {
      if (!/^fsap-[0-9a-f]+$/.test(authorization.accessPointId)) problems.push(`${where}: accessPointId ${authorization.accessPointId} is not fsap-<hex>`);
      if (![undefined, '/'].includes(efs.rootDirectory)) problems.push(`${where}: rootDirectory must be omitted with an access point`);
    }
    if (authorization.iam === 'ENABLED' && !definition.taskRoleArn) problems.push(`${where}: IAM authorization needs a taskRoleArn`);
  }
  return problems;
}

// [name, check, whether it looks at the hostprobe container]
const CHECKS = [
  ['input shape', checkInputShape, false],
  ['hostprobe container', checkHostprobeContainer, false],
  ['containers', checkContainers, false],
  ['environment', checkEnvironment, false],
  ['command', checkCommand, true],
  ['health check', checkHealthCheck, true],
  ['port', checkPort, true],
  ['hardening', checkHardening, true],
  ['stop timeout', checkStopTimeout, true],
  ['logging', checkLogging, false],
  ['roles', checkRoles, false],
  ['task size', checkTaskSize, false],
  ['container sizes', checkContainerSizes, false],
  ['disk dirs', checkDiskDirs, true],
  ['efs volumes', checkEfsVolumes, false],
];

function evaluate(definition, context) {
  const hostprobe = hostprobeOf(definition);
  return CHECKS.map(([name, check, needsHostprobe]) => {
    let problems;
    if (needsHostprobe && !hostprobe) {
      problems = ['no hostprobe container'];
    } else {
      try {
        problems = check(definition, context, hostprobe);
      } catch (error) {  // a malformed definition must fail its check, not stop the run
        problems = [`check crashed: ${error.message}`];
      }
    }
    return { name, problems };
  });
}

// ---- Proof that the checks can fail -------------------------------------------------------------

function setVariable(container, name, value) {
  container.environment = environmentOf(container).filter((e) => e.name !== name).concat([{ name, value }]);
}

// [file to start from, what is broken, the check that must reject it, how to break it]
const MUTATIONS = [
  ['fargate-sidecar.json', 'essential "yes" instead of true', 'input shape', (d, hp) => { hp.essential = 'yes'; }],
  ['fargate-sidecar.json', "run-task's launchType as a top-level key", 'input shape', (d) => { d.launchType = 'FARGATE'; }],
  ['fargate-sidecar.json', 'networkMode "AWSVPC"', 'input shape', (d) => { d.networkMode = 'AWSVPC'; }],
  ['fargate-sidecar.json', 'container cpu "128" as text', 'input shape', (d, hp) => { hp.cpu = '128'; }],
  ['fargate-sidecar.json', 'two containers named app', 'containers', (d, hp) => { hp.name = 'app'; }],
  ['fargate-sidecar.json', 'no essential container', 'containers', (d) => { d.containerDefinitions[0].essential = false; }],
  ['fargate-survey.json', 'unknown variable HOSTPROBE_FOO', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_FOO', '1')],
  ['fargate-efs.json', 'HOSTPROBE_PARAMS that is not JSON', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_PARAMS', '{"disk": ')],
  ['fargate-efs.json', 'HOSTPROBE_PARAMS writing outside the allowlist', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_PARAMS', '{"disk": {"directory": "/tmp"}}')],
  ['fargate-survey-serve.json', 'HOSTPROBE_RUN_ON_START=cpu,ciphers', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_RUN_ON_START', 'cpu,ciphers')],
  ['fargate-survey.json', 'ECS_CONTAINER_METADATA_URI_V4 set by hand', 'environment',
    (d, hp) => setVariable(hp, 'ECS_CONTAINER_METADATA_URI_V4', 'http://169.254.170.2/v4/x')],
  ['fargate-survey-serve.json', 'a health check running `hostprobe healthz`', 'health check', (d, hp) => { hp.healthCheck.command = ['CMD', 'hostprobe', 'healthz']; }],
  ['fargate-survey-serve.json', 'a health check in CMD-SHELL form', 'health check', (d, hp) => { hp.healthCheck.command = ['CMD-SHELL', 'hostprobe healthcheck']; }],
  ['fargate-survey-serve.json', 'a health check flag --retries', 'health check', (d, hp) => { hp.healthCheck.command.push('--retries', '3'); }],
  ['fargate-survey-serve.json', 'a health check timeout equal to hostprobe\'s', 'health check', (d, hp) => { hp.healthCheck.timeout = 2; }],
  ['fargate-survey-serve.json', 'containerPort 9741', 'port', (d, hp) => { hp.portMappings[0].containerPort = 9741; }],
  ['fargate-survey-serve.json', 'HOSTPROBE_LISTEN=0.0.0.0:9100', 'port', (d, hp) => setVariable(hp, 'HOSTPROBE_LISTEN', '0.0.0.0:9100')],
  ['fargate-survey.json', 'HOSTPROBE_LISTEN on the survey', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_LISTEN', '0.0.0.0:9740')],
  ['fargate-survey.json', 'HOSTPROBE_PROBES=cpu,ciphers', 'environment', (d, hp) => setVariable(hp, 'HOSTPROBE_PROBES', 'cpu,ciphers')],
  ['fargate-survey.json', 'entryPoint hostprobe surveys', 'command', (d, hp) => { hp.entryPoint = ['hostprobe', 'surveys']; }],
  ['fargate-survey.json', 'a survey flag --probe', 'command', (d, hp) => { hp.command = ['--probe', 'cpu']; }],
  ['fargate-survey.json', 'a survey flag --listen (serve\'s)', 'command', (d, hp) => { hp.command = ['--listen', '0.0.0.0:9740']; }],
  ['fargate-survey.json', '--probes=cpu,ciphers', 'command', (d, hp) => { hp.command = ['--probes=cpu,ciphers']; }],
  ['fargate-survey.json', '--params naming a probe that is not one', 'command', (d, hp) => { hp.command = ['--params', '{"ciphers": {}}']; }],
  ['fargate-survey.json', 'a health check on the survey', 'health check',
    (d, hp) => { hp.healthCheck = { command: ['CMD', 'hostprobe', 'healthcheck'], timeout: 5 }; }],
  ['fargate-survey.json', 'a port mapping on the survey', 'port', (d, hp) => { hp.portMappings = [{ containerPort: 9740, protocol: 'tcp' }]; }],
  ['fargate-survey-serve.json', 'entryPoint hostprobe run', 'command', (d, hp) => { hp.entryPoint = ['hostprobe', 'run']; }],
  ['fargate-sidecar.json', 'PROMETHEUS_EXPORTER_PORT=9100', 'port', (d, hp) => { hp.dockerLabels.PROMETHEUS_EXPORTER_PORT = '9100'; }],
  ['fargate-survey.json', 'a writable root filesystem', 'hardening', (d, hp) => { hp.readonlyRootFilesystem = false; }],
  ['fargate-survey.json', 'user root', 'hardening', (d, hp) => { hp.user = '0'; }],
  ['fargate-survey.json', 'capabilities kept', 'hardening', (d, hp) => { delete hp.linuxParameters; }],
  ['fargate-survey.json', 'stopTimeout 300', 'stop timeout', (d, hp) => { hp.stopTimeout = 300; }],
  ['fargate-sidecar.json', 'the app logging to json-file', 'logging', (d) => { d.containerDefinitions[0].logConfiguration.logDriver = 'json-file'; }],
  ['fargate-survey.json', 'no executionRoleArn', 'roles', (d) => { delete d.executionRoleArn; }],
  ['fargate-survey.json', 'cpu 256 and memory 4096 on Fargate', 'task size', (d) => { d.memory = '4096'; }],
  ['fargate-survey.json', 'bridge networking on Fargate', 'task size', (d) => { d.networkMode = 'bridge'; }],
  ['ec2-daemon.json', 'no container memory on EC2', 'task size', (d, hp) => { delete hp.memory; }],
  ['fargate-sidecar.json', 'containers asking more memory than the task', 'container sizes', (d, hp) => { hp.memory = 256; }],
  ['fargate-efs.json', 'HOSTPROBE_DISK_DIRS=/mnt/efs,/tmp', 'disk dirs', (d, hp) => setVariable(hp, 'HOSTPROBE_DISK_DIRS', '/mnt/efs,/tmp')],
  ['fargate-efs.json', 'EFS mounted read-only', 'disk dirs', (d, hp) => { hp.mountPoints[0].readOnly = true; }],
  ['fargate-efs.json', 'EFS IAM authorization without transit encryption', 'efs volumes',
    (d) => { d.volumes[0].efsVolumeConfiguration.transitEncryption = 'DISABLED'; }],
  ['fargate-efs.json', 'EFS IAM authorization without a task role', 'efs volumes', (d) => { delete d.taskRoleArn; }],
];

function selfTest(definitions, context) {
  return MUTATIONS.map(([file, description, expectedCheck, mutate]) => {
    const label = `${file} with ${description}`;
    if (!definitions.has(file)) return { ok: false, line: `${label}: ${file} is missing` };
    const problemsOf = (definition) => evaluate(definition, context).find((r) => r.name === expectedCheck).problems;
    // Rejecting a copy of a file that already fails the check would prove nothing.
    if (problemsOf(definitions.get(file)).length > 0) return { ok: false, line: `${label}: ${file} itself fails ${expectedCheck}` };
    const definition = structuredClone(definitions.get(file));
    mutate(definition, hostprobeOf(definition));
    const problems = problemsOf(definition);
    return problems.length > 0
      ? { ok: true, line: `${label}: rejected by ${expectedCheck}: ${problems[0]}` }
      : { ok: false, line: `${label}: ${expectedCheck} accepted it` };
  });
}

// ---- Main ---------------------------------------------------------------------------------------

function main() {
  const binary = process.argv[2];
  if (!binary || process.argv.length > 3) {
    console.error('usage: node validate.js <path-to-hostprobe-binary>');
    process.exit(2);
  }
  let context;
  try {
    context = {
      facts: readBinaryFacts(path.resolve(binary)),
      image: readDockerfileFacts(DOCKERFILE),
      registerInput: loadRegisterTaskDefinitionInput(),
    };
  } catch (error) {
    console.log(`FAIL cannot learn what to check against: ${error.message}`);
    process.exit(1);
  }
  console.log(`hostprobe: commands ${[...context.facts.commands].join(', ')}; probes ${[...context.facts.probes].join(', ')}; `
    + `${context.facts.envNames.size} environment variables; listens on ${context.facts.defaultListen} by default`);
  console.log(`Dockerfile: EXPOSE ${context.image.exposedPort}, USER ${context.image.uid}`);
  console.log(`RegisterTaskDefinition input shape: ${context.registerInput.description}`);

  let failures = 0;
  let checks = 0;
  const files = fs.readdirSync(DEFINITIONS_DIR).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) {
    console.log(`FAIL no task definitions in ${DEFINITIONS_DIR}`);
    failures += 1;
  }
  const definitions = new Map();
  for (const file of files) {
    let definition;
    try {
      definition = JSON.parse(fs.readFileSync(path.join(DEFINITIONS_DIR, file), 'utf8'));
    } catch (error) {
      console.log(`FAIL ${file}: JSON: ${error.message}`);
      failures += 1;
      continue;
    }
    definitions.set(file, definition);
    for (const { name, problems } of evaluate(definition, context)) {
      checks += 1;
      if (problems.length > 0) failures += 1;
      console.log(problems.length === 0 ? `ok   ${file}: ${name}` : `FAIL ${file}: ${name}: ${problems.join('; ')}`);
    }
  }
  for (const { ok, line } of selfTest(definitions, context)) {
    checks += 1;
    if (!ok) failures += 1;
    console.log(`${ok ? 'ok  ' : 'FAIL'} self-test: ${line}`);
  }
  console.log(`${checks} checks on ${files.length} task definitions and ${MUTATIONS.length} broken copies: `
    + (failures === 0 ? 'all passed' : `${failures} FAILED`));
  process.exit(failures === 0 ? 0 : 1);
}

main();
