/**
 * The dashboard's JavaScript, served as /dashboard/app.js: the client parts
 * joined in one strict-mode function scope (order matters only for the shell,
 * which starts everything on DOMContentLoaded).
 */
import { accountsSource } from './client/accounts.ts';
import { coreSource } from './client/core.ts';
import { insightsSource } from './client/insights.ts';
import { shellSource } from './client/shell.ts';

export const dashboardScript = ['(function () {', "'use strict';", coreSource, accountsSource, insightsSource, shellSource, '})();', ''].join('\n');
