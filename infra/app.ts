/**
 * The CDK app (`cdk.json` runs it): one `PersonServiceStack`, environment-agnostic (no account or
 * region looked up), so `npm run synth` works offline; `cdk deploy` picks the account and region from
 * the caller's AWS profile. cdk-nag's AwsSolutions and Serverless packs check it at every synth
 * (infra/nag.ts): a finding not acknowledged fails the synth, and so the deploy.
 */
import { App } from 'aws-cdk-lib';
import { stackConfigFromContext } from './config';
import { checkWithNag } from './nag';
import { PersonServiceStack } from './person-service-stack';

const app = new App();
checkWithNag(app);
new PersonServiceStack(app, 'PersonServiceStack', {
  description: 'Authority Person Service: HTTP API, Lambda functions and the Person table',
  config: stackConfigFromContext(app.node),
});
app.synth();
