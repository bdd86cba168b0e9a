/** Campaign rules (issue 53): the schema and the pure matching; the bonus's points call is shared/points/bonus.ts. */
export { type CampaignPurchase, campaignBonus, matchingCampaigns } from './match.js';
export { Campaign, Campaigns, parseCampaigns } from './schema.js';
