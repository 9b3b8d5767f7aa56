/**
 * Every command the extension registers, written once: registrations, command
 * links (tree items, chat buttons, the status bar) and `package.json` all use
 * these names, and a unit test checks the manifest against this map in both
 * directions. No `vscode` import, so that test runs under plain Node.
 */
export const COMMANDS = {
  addMemory: 'workspaceMemory.addMemory',
  saveSelection: 'workspaceMemory.saveSelection',
  search: 'workspaceMemory.search',
  previewRecall: 'workspaceMemory.previewRecall',
  open: 'workspaceMemory.open',
  edit: 'workspaceMemory.edit',
  delete: 'workspaceMemory.delete',
  copyId: 'workspaceMemory.copyId',
  openSource: 'workspaceMemory.openSource',
  showHistory: 'workspaceMemory.showHistory',
  openVersion: 'workspaceMemory.openVersion',
  compareWithPrevious: 'workspaceMemory.compareWithPrevious',
  restoreVersion: 'workspaceMemory.restoreVersion',
  createSnapshot: 'workspaceMemory.createSnapshot',
  restoreSnapshot: 'workspaceMemory.restoreSnapshot',
  refreshSnapshots: 'workspaceMemory.refreshSnapshots',
  openWalkthrough: 'workspaceMemory.openWalkthrough',
  export: 'workspaceMemory.export',
  import: 'workspaceMemory.import',
  importFromTools: 'workspaceMemory.importFromTools',
  exportToTools: 'workspaceMemory.exportToTools',
  verify: 'workspaceMemory.verify',
  showStats: 'workspaceMemory.showStats',
  syncDocs: 'workspaceMemory.syncDocs',
  rebuildIndex: 'workspaceMemory.rebuildIndex',
  refresh: 'workspaceMemory.refresh',
  showLog: 'workspaceMemory.showLog',
  showMore: 'workspaceMemory.showMore',
  undoChatSave: 'workspaceMemory.undoChatSave',
  applyConsolidationPlan: 'workspaceMemory.applyConsolidationPlan',
  approve: 'workspaceMemory.approve',
  reject: 'workspaceMemory.reject',
  approveAll: 'workspaceMemory.approveAll',
  rejectAll: 'workspaceMemory.rejectAll',
  revertWrites: 'workspaceMemory.revertWrites',
  reviewStale: 'workspaceMemory.reviewStale',
  keepUsed: 'workspaceMemory.keepUsed',
  shareWithTeam: 'workspaceMemory.shareWithTeam',
  makePersonal: 'workspaceMemory.makePersonal',
  reinstate: 'workspaceMemory.reinstate',
  findSecrets: 'workspaceMemory.findSecrets',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
