/**
 * Parsed JSON that a test walks freely: a synthesised CloudFormation template, a stage file, a log line.
 * Typing every path would only restate the document the test is reading.
 */
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON read by assertions; a wrong path fails the assertion itself
export type Json = any;
