import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import { oneLine } from '../../core/text';
import { TEAM_AGENT_ID } from '../../core/types';
import { COMMANDS } from '../commands/ids';
import { type CommandHandler, missingPrompt } from './command';
import { findMemories, offerEach } from './memory-commands';

/**
 * /share <id or words>: shows the memory (or the candidates) with a Share
 * with Team button each; the click writes its file in the team folder.
 * Sharing is a person's choice: nothing is shared by the request itself.
 */
export const share: CommandHandler = async (context) => {
  if (
    missingPrompt(context, vscode.l10n.t('Name the memory to share: its id, or words from it, e.g. `/share deploy`.'))
  )
    return;
  const { reply, services } = context;
  try {
    await (await services.memory()).team.status();
  } catch (error) {
    if (!isMemoryError(error, 'NOT_FOUND')) throw error;
    reply.markdown(
      vscode.l10n.t(
        'Team memory needs a trusted workspace folder: its team folder (`workspaceMemory.team.folder`) is shared through git.',
      ),
    );
    return;
  }
  reply.progress(vscode.l10n.t('Looking for the memory…'));
  const found = (await findMemories(context)).filter((entity) => entity.agentId !== TEAM_AGENT_ID);
  if (found.length === 0) {
    reply.markdown(
      vscode.l10n.t(
        'None of your memories matches "{0}" (team memory is shared already). Try `/search` with other words.',
        oneLine(context.request.prompt, 80),
      ),
    );
    return;
  }
  reply.markdown(
    vscode.l10n.t(
      'Share with the team? **Share with Team** writes it as a file in the team folder, for you to commit; it then leaves your own memories.\n\n',
    ),
  );
  offerEach(reply, found, (entity) => ({
    command: COMMANDS.shareWithTeam,
    title: found.length === 1 ? vscode.l10n.t('Share with Team') : vscode.l10n.t('Share {0}', entity.id),
    arguments: [{ kind: 'entity', entity }],
  }));
};
