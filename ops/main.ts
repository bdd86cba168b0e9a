/**
 * The one entry point of the operator commands, against the local stack (`npm start` on PORT) or a
 * deployed stage (`--stage S [--stack NAME] [--outputs FILE]`):
 *   npm run ledger -- <source> <order id>  |  <source> --customer <id>  (an order's records, or a shop customer's)
 *   npm run redrive -- [--dry-run]
 *   npm run dlq                                  (the dead letters, each with its reason)
 *   npm run quarantine -- list | show <id> | replay <id> | replay --all
 *   npm run audit -- [--since DATE|3d] [--until DATE] [--json]
 *   npm run reconcile -- --source <name> --since <ISO date> [--until …] [--dry-run] [--shop DOMAIN]
 *     (queues what Shopify holds but the ledger never saw; last line `reconcile: scanned=N missing=M enqueued=E`)
 *   npm run reprocess -- --outcome upstream_rejected [--source S] [--since ISO] [--dry-run]
 *     (queues the events parked as upstream_rejected again; last line `reprocess: found=N queued=Q`)
 *   npm run reprocess -- --source S --customer ID [--days N] [--key K]
 *     (queues for the worker the crediting of the customer's earlier purchases that found no member)
 *   npm run members -- link --source <name> --file <csv> [--dry-run]
 *     (attaches shop customer codes to members and queues their earlier purchases for the worker;
 *     last line `members: rows=N linked=L already=A refused=R`)
 *   npm run privacy -- list | show <request id>   (Shopify's privacy requests and what was done; a data request's report)
 *   npm run redemptions -- list [--customer ID] | sweep | shortfalls [--stage S]   (points turned into discount codes, and their states;
 *     shortfalls: till spends the membership balance cut short; sweep refuses to run on a clock more than 1 s off the ledger's DynamoDB endpoint: ops/clock-skew.ts)
 *   npm run smaregi -- check [--source S] [--days N]   (what the Platform API shows of Smaregi's own point earning and expiry,
 *     which a shop must turn off under tillPoints membership; exit 1 when one is seen)
 *   npm run returns -- list | apply <return id> --sale <transaction id> | dismiss <return id> --why "..."
 *     (a till's plain returns naming no sale: open ones, settled as a refund of a sale, or closed without points)
 *   npm run points-report -- --month YYYY-MM [--format csv|json]   (the month's points ledger for the accountants on stdout;
 *     last line on stderr `points-report: month=M rows=N net=X reconciled=yes`; docs/accounting.md)
 *   npm run rotate -- --source <name> | --openapi [--retire] [--secret-file FILE]   (new secret on stdin or in FILE;
 *     last line `rotate: <name> added|retired secrets=N`)
 *   npm run shopify -- subscribe [--source NAME] [--shop DOMAIN]
 *     (subscribes the shop to every topic the source needs; last line `shopify: topics=N created=C existing=E`)
 * Nothing here runs the points protocol on an unchecked clock: docs/runbook.md, "Operator commands and this machine's clock".
 */
import { opsCommand } from './index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

opsCommand(process.argv.slice(2), process.env).then((code) => process.exit(code));
