/**
 * Stored text that speaks to the AI reading it rather than about the
 * project: "ignore all previous instructions", a chat template's control
 * tokens, a fake system prompt, a request to hide something from the user
 * or to send secrets somewhere. Memories are full of imperative conventions
 * ("Always run npm test before committing"), so every pattern needs the text
 * to address the model itself or to try to take over its instructions: an
 * imperative alone is never enough.
 *
 * One case-insensitive regular expression, so checking a whole listing stays
 * cheap; its repeats are bounded or separate words, so no text makes it
 * backtrack for long (the tests time it on hostile text).
 */

/** Optional words between a verb and what it acts on: "ignore all of the previous instructions". */
const FILLER = String.raw`(?:(?:all|any|every|each|of|the|your|my|these|those)\s+){0,4}`;
const EARLIER = String.raw`(?:previous|prior|above|preceding|earlier|former|original|initial|system|developer|safety|ethical)`;
const ORDERS = String.raw`(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|guardrails|orders|constraints|context)`;
/** What an AI is called; not plain "agents", "assistants" or "models", which people, build agents and data models also are. */
const AI = String.raw`(?:ai(?:\s+(?:agents?|assistants?|models?|systems?))?|llms?|(?:large\s+)?language\s+models?|chatbots?|copilot|chatgpt|gpt-?\d*|claude|gemini|coding\s+agents?)`;
const BACKTICK = '`';
/** A tool's name: in backticks, or snake_case as tools are named. */
const TOOL_NAME = String.raw`(?:${BACKTICK}[^${BACKTICK}\n]{1,60}${BACKTICK}|\w+_\w+)`;

const PATTERNS: readonly string[] = [
  // Taking over: "ignore all previous instructions", "disregard your rules", "forget everything above".
  String.raw`\b(?:ignore|disregard|forget|override|bypass|overwrite|discard)\s+${FILLER}${EARLIER}\s+${ORDERS}`,
  String.raw`\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:all\s+)?(?:of\s+)?your\s+(?:own\s+|current\s+|safety\s+|${EARLIER}\s+)?${ORDERS}`,
  String.raw`\b(?:disregard|forget|ignore)\s+(?:everything|anything|all)\s+(?:(?:that\s+)?(?:was\s+|is\s+|you\s+were\s+)?(?:said|written|stated|told)\s+)?(?:above|before\s+this|earlier|previously|so\s+far)\b`,
  String.raw`\b(?:disregard|forget|ignore)\s+everything\s+you\s+(?:were|have\s+been|['’]ve\s+been)\s+told\b`,
  String.raw`\b(?:disregard|ignore|forget)\s+(?:all\s+of\s+)?the\s+(?:above|preceding|foregoing)(?=\s*(?:[.,:;!]|$|and\b|instead\b))`,
  String.raw`\b(?:ignore|disregard|forget)\s+${FILLER}${ORDERS}\s+(?:above|before\s+this|you\s+(?:were|have\s+been)\s+given)\b`,
  String.raw`\b(?:stop|quit|cease|no\s+longer)\s+(?:following|obeying)\s+${FILLER}(?:${EARLIER}\s+)?${ORDERS}`,
  String.raw`\b(?:do\s+not|don['’]?t|never)\s+(?:follow|obey)\s+(?:the\s+system\s+prompt|your\s+(?:\w+\s+)?(?:instructions|rules|guidelines))`,
  String.raw`\b(?:ignore|disregard)\s+the\s+user(?:['’]s\s+(?:request|question|instructions?|message)|\s+and\b)`,
  String.raw`\bsystem\s+override\b|\binstead\s+of\s+(?:answering\s*,|(?:answering|responding\s+to|replying\s+to)\s+(?:the\s+|this\s+|my\s+)?(?:user|question|request|prompt)\b)`,
  // A new role or new orders for the reader.
  String.raw`\byou\s+are\s+now\s+(?:an?|acting|free|unrestricted|jailbroken|dan|no\s+longer\s+(?:bound|restricted|an?)|going\s+to|operating\s+(?:as|in|without)|playing|called|named|in\s+[\w-]+\s+mode)\b`,
  String.raw`\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:ai|assistant|model|agent))\s+(?:must|will|shall|are|have\s+to|may\s+only|can\s+only|should\s+(?:always|never|only))\b`,
  String.raw`\byour\s+(?:new|real|true|actual|only|primary)\s+(?:task|goal|role|purpose|instructions?|objective|job|mission|directive)\s+(?:is|are|will\s+be)\b`,
  String.raw`\bnew\s+(?:system\s+)?instructions?\s*:`,
  String.raw`(?:^|[.!?]\s+|\bplease\s+)(?:act|behave|respond)\s+as\s+(?:if\s+you\b|(?:an?\s+|the\s+|my\s+)?(?:unrestricted|unfiltered|uncensored|evil|jailbroken|dan\b|${AI}\b))`,
  String.raw`\bpretend\s+(?:to\s+be|that\s+you|you\s+are)\b`,
  String.raw`\b(?:dan|jailbreak|god)\s+mode\b|\bdo\s+anything\s+now\b`,
  // Speaking to the model by name: "Note to AI agents:", "if you are an LLM reading this".
  String.raw`\b(?:attention|note|message|important|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?${AI}\s*[:,!]`,
  String.raw`\bif\s+you\s+are\s+(?:an?\s+)?${AI}\s+(?:reading|processing|parsing|seeing|summari[sz]ing)\b`,
  String.raw`\b${AI}\s+(?:reading|processing)\s+this\s+(?:must|should|will|shall)\b`,
  String.raw`\b(?:ai\s+(?:agents?|assistants?|models?)|llms?|language\s+models?)\s+(?:must|should|shall)\s+(?:now\s+|always\s+|never\s+|not\s+|also\s+)?(?:ignore|disregard|obey|run|execute|delete|send|push|reveal|call|stop)\b`,
  String.raw`<!--\s*(?:ai|assistant|copilot|llm|agent)s?\s*[:,]`,
  // The system prompt as a target: "reveal your system prompt", "new system prompt:".
  String.raw`\b(?:reveal|print|show|output|repeat|leak|disclose|dump|ignore|override|bypass|forget|replace)\s+(?:me\s+)?(?:(?:your|the)\s+(?:system|initial|hidden|original|secret)\s+(?:prompt|instructions|message)|your\s+(?:instructions|prompt)\b)`,
  String.raw`\b(?:your|real|actual|true)\s+system\s+prompt\b|\bnew\s+system\s+(?:prompt|message)\s*:`,
  // Keeping the user in the dark.
  String.raw`\b(?:do\s+not|don['’]?t|never)\s+(?:(?:tell|inform|alert|warn)\s+the\s+user|let\s+the\s+user\s+know)\s+(?:about\s+(?:this|these|it)\b|that\s+you\b|what\s+you\b)`,
  String.raw`\b(?:keep|hide)\s+(?:this|it|these)\s+(?:(?:secret|hidden)\s+)?from\s+the\s+user\b`,
  String.raw`\b(?:do\s+not|don['’]?t|never|must\s+not|should\s+not)\s+(?:mention|reveal|disclose|show)\s+(?:this|these|it)\s+(?:(?:note|message|instructions?|text)\s+)?to\s+the\s+user\b`,
  // Chat templates' control tokens and role tags, which a model reads as turns of the conversation.
  String.raw`<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id|eom_id)\|>`,
  String.raw`\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>|\[system\]\(#`,
  String.raw`</?(?:system|system[-_]prompt|system[-_]reminder|tool_call|tool_calls|function_calls?)>|<invoke\s+name=`,
  String.raw`^ {0,3}#{1,6}[ \t]*(?:instructions?|system(?:[ \t]+prompt)?)[ \t]*:`,
  String.raw`^[ \t]*(?:system|developer)(?:[ \t]+(?:prompt|message))?[ \t]*:[ \t]*you\s+(?:are|must|will|shall|should)\b`,
  // Directing tool use at a named tool: "call the memory_forget tool", "invoke the tool `send_mail` with".
  String.raw`\b(?:call|invoke)\s+(?:the\s+)?(?:${TOOL_NAME}\s+tool\b|tool\s+${TOOL_NAME})`,
  // Destroying or sending away what the user has.
  String.raw`\brm\s+-(?:rf|fr|r\s+-f|f\s+-r)\s+(?:--no-preserve-root\s+)?(?:/|~|\$HOME)(?=[\s"';${BACKTICK}]|$)`,
  String.raw`\bexfiltrat(?:e|es|ed|ing|ion)\b`,
  String.raw`\b(?:send|post|upload|forward|leak|transmit|email)\s+(?:(?:all|the|your|any|every|of|user['’]?s?|their|stored|saved|private|local)\s+){0,3}(?:secrets?|credentials|passwords|api[\s_-]?keys|ssh\s+keys|private\s+keys|env(?:ironment)?\s+variables|\.env(?:\s+files?)?|conversations?|chat\s+history|memories)\b[^.\n]{0,80}?\b(?:to|at)\s+(?:https?://|[\w.+-]+@[\w-]+\.)`,
];

const PATTERN = new RegExp(PATTERNS.join('|'), 'im');

// Characters that render as nothing, which would split a phrase without changing how it reads.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;

/**
 * The phrase that addresses an AI (an attempt to give it instructions or to
 * take over the ones it has), or undefined when the text reads as ordinary
 * notes. Width variants and invisible characters are folded first, so
 * "ｉｇｎｏｒｅ" or a zero-width space inside a word do not hide a phrase.
 */
export function looksLikeInstruction(text: string): string | undefined {
  const match = PATTERN.exec(text.normalize('NFKC').replace(INVISIBLE, ''));
  return match ? match[0].trim() : undefined;
}
