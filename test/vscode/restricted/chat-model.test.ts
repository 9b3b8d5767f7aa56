// Restricted Mode has no language model (the fake one is loaded only in the
// main run): the Collections view says that chat needs one, beside why the
// workspace's documents are missing.
import * as assert from 'node:assert/strict';

import { extensionApi, waitFor } from '../suite/extension-api';

describe('restricted mode: no chat model', () => {
  it('says in the Collections view that chat needs a language model and the rest works without one', async () => {
    const { views } = await extensionApi();
    assert.equal(await views.chatModel.check(), false);
    const message = await waitFor('the notice', () => {
      const text = views.collectionsMessage();
      return text?.includes('language model') ? text : undefined;
    });
    assert.match(message, /Restricted Mode/);
    assert.match(message, /@memory in chat needs a language model/);
    assert.match(message, /views, commands, CLI and MCP server work without one/);
  });
});
