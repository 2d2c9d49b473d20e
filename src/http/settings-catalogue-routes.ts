/** GET /api/inference/pool/settings/catalogue: every setting with its default, range and env lock (`cihub pool settings`). */
import type { FastifyInstance } from 'fastify';
import { settingsCatalogue } from '../config/settings-catalogue.js';
import type { HubServices } from './services.js';

export function registerSettingsCatalogueRoutes(app: FastifyInstance, s: Pick<HubServices, 'settings' | 'env'>): void {
  const operator = { config: { access: 'operator' as const } };
  app.get('/api/inference/pool/settings/catalogue', operator, async () => ({ settings: settingsCatalogue(s.settings.get(), s.env) }));
}
