/**
 * `npm run shopify -- subscribe [--source NAME] [--shop DOMAIN] [--stage S]`: subscribes the shop to
 * every webhook topic the Shopify source needs, at the source's webhook URL, creating only what is
 * missing. The last line is `shopify: topics=N created=C existing=E`.
 */
import { shopifyCommand } from './cli/shopify-command.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

shopifyCommand(process.argv.slice(2), process.env).then((code) => process.exit(code));
