// Checks CloudWatch Embedded Metric Format lines: each against the JSON schema AWS publishes
// with its specification (emf-schema.json, with ajv), and against the rules the schema cannot
// express (the specification's text): every dimension a set names present at the root as a
// string of 1 to 1024 characters, every metric present as a number (or an array of at most 100
// numbers), at most 100 metrics per directive and 30 dimensions per set, the line under the size
// of one CloudWatch Logs event as ECS's awslogs driver sends it (262118 bytes; the
// specification's own limit is 1 MB).
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require(path.join(__dirname, '..', 'js', 'node_modules', 'ajv'));

const kMaxLineBytes = 262144 - 26;
const schema = JSON.parse(fs.readFileSync(path.join(__dirname, 'emf-schema.json'), 'utf8'));
const validateSchema = new Ajv({ strict: true, allErrors: true }).compile(schema);

function isMetricValue(value) {
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.length <= 100 &&
         value.every((v) => typeof v === 'number' && Number.isFinite(v));
}

// The problems of one line (empty when it is a valid EMF document).
function lineProblems(line) {
  const problems = [];
  if (Buffer.byteLength(line, 'utf8') >= kMaxLineBytes) problems.push('line too long');
  let document;
  try {
    document = JSON.parse(line);
  } catch (error) {
    return [`not JSON: ${error.message}`];
  }
  if (!validateSchema(document)) {
    for (const error of validateSchema.errors) problems.push(`schema: ${error.instancePath} ${error.message}`);
    return problems;
  }
  for (const directive of document._aws.CloudWatchMetrics) {
    if (directive.Metrics.length > 100) problems.push('more than 100 metrics in a directive');
    for (const set of directive.Dimensions) {
      if (set.length > 30) problems.push('more than 30 dimensions in a set');
      for (const name of set) {
        const value = document[name];
        if (typeof value !== 'string') problems.push(`dimension ${name} is not a string member`);
        else if (value.length < 1 || value.length > 1024) problems.push(`dimension ${name} has a bad length`);
      }
    }
    for (const metric of directive.Metrics) {
      if (!isMetricValue(document[metric.Name])) problems.push(`metric ${metric.Name} is not a number member`);
      if (!('Unit' in metric)) problems.push(`metric ${metric.Name} has no unit`);
    }
  }
  return problems;
}

module.exports = { lineProblems, kMaxLineBytes };

// node validate.js FILE...: every line of every file; exit 1 on the first bad line.
if (require.main === module) {
  let count = 0;
  for (const file of process.argv.slice(2)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const problems = lineProblems(line);
      if (problems.length) {
        console.error(`${file}: ${problems.join('; ')}\n${line.slice(0, 400)}`);
        process.exit(1);
      }
      ++count;
    }
  }
  console.log(`${count} EMF lines valid`);
}
