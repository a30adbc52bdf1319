// Where an audit's review lives: its page, and the API that reads and records it.
const enc = encodeURIComponent;

/** The review page of an audit message ("latest": the conversation's latest audit). */
export const reviewPage = (threadId, messageId) => `/review/${enc(threadId)}/${enc(messageId)}`;

/** GET (the review) and POST (a decision) of an audit message's review. */
export function reviewApi(threadId, messageId) {
  return messageId === 'latest' ? `/api/conversations/${enc(threadId)}/review`
    : `/api/conversations/${enc(threadId)}/messages/${enc(messageId)}/review`;
}
