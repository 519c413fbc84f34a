import type { ApprovalItem, QuestionItem } from '@agentlane/client';
import { type FormEvent, useState } from 'react';
import { client } from '../api';
import { DiffBody } from './diff-body';

function Answered({ by, at, text }: { by?: string; at?: string; text: string }) {
  return (
    <p className="answered">
      {text}
      {by ? ` by ${by}` : ''}
      {at ? (
        <>
          {' '}
          at <time dateTime={at}>{new Date(at).toLocaleString()}</time>
        </>
      ) : null}
    </p>
  );
}

/**
 * Shows exactly what is asked and answers it through the API; the run resumes, it never restarts. Read-only
 * in a fork's history (the origin's run, not this thread's).
 */
export function ApprovalCard({ item, readOnly }: { item: ApprovalItem; readOnly?: boolean | undefined }) {
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState<string | undefined>();
  const request = item.request;
  const answer = async (optionId: string | undefined) => {
    setSending(optionId ?? 'cancel');
    setError(undefined);
    try {
      await client.answerApproval(
        item.runId,
        item.approvalId,
        optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' },
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setSending(undefined);
    }
  };
  const chosen = request?.options.find((o) => o.optionId === item.resolution?.optionId);
  return (
    <section
      className={`card approval ${item.open ? 'open' : 'resolved'}`}
      data-surface="approval"
      aria-label="Approval"
    >
      <h3>{request?.title ?? 'Approval requested'}</h3>
      {request?.description && <p>{request.description}</p>}
      {request?.subject.command && <pre className="code-block">{request.subject.command}</pre>}
      {request?.subject.path && <p className="mono">{request.subject.path}</p>}
      {request?.subject.diff && <DiffBody diff={request.subject.diff} />}
      {item.open && request && !readOnly && (
        <div className="actions">
          {request.options.map((option) => (
            <button
              key={option.optionId}
              type="button"
              className={option.kind.startsWith('allow') ? 'primary' : ''}
              disabled={sending !== undefined}
              onClick={() => answer(option.optionId)}
            >
              {option.label}
            </button>
          ))}
        </div>
      )}
      {item.resolution && (
        <Answered
          by={item.resolution.answeredBy}
          at={item.resolution.answeredAt}
          text={
            item.resolution.outcome === 'cancelled'
              ? 'Cancelled'
              : `Answered: ${chosen?.label ?? item.resolution.optionId}`
          }
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

export function QuestionCard({ item, readOnly }: { item: QuestionItem; readOnly?: boolean | undefined }) {
  const request = item.request;
  const [choices, setChoices] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  const send = async (outcome: 'answered' | 'declined') => {
    setSending(true);
    try {
      await client.answerQuestion(
        item.runId,
        item.questionId,
        outcome === 'answered' ? { outcome, choiceIds: choices, ...(text ? { text } : {}) } : { outcome },
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setSending(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send('answered');
  };
  const toggle = (id: string) =>
    setChoices((current) =>
      request?.multiple ? (current.includes(id) ? current.filter((c) => c !== id) : [...current, id]) : [id],
    );
  return (
    <section
      className={`card question ${item.open ? 'open' : 'resolved'}`}
      data-surface="question"
      aria-label="Question"
    >
      <h3>{request?.prompt ?? 'Question'}</h3>
      {item.open && request && !readOnly && (
        <form onSubmit={submit}>
          <fieldset>
            <legend className="sr-only">Choices</legend>
            {request.choices.map((choice) => (
              <label key={choice.id} className="choice">
                <input
                  type={request.multiple ? 'checkbox' : 'radio'}
                  name={`q-${item.questionId}`}
                  checked={choices.includes(choice.id)}
                  onChange={() => toggle(choice.id)}
                />
                {choice.label}
                {choice.description && <span className="muted"> — {choice.description}</span>}
              </label>
            ))}
          </fieldset>
          {request.allowFreeText && (
            <label>
              Answer
              <input value={text} onChange={(e) => setText(e.target.value)} />
            </label>
          )}
          <div className="actions">
            <button type="submit" className="primary" disabled={sending || (choices.length === 0 && !text)}>
              Answer
            </button>
            <button type="button" disabled={sending} onClick={() => send('declined')}>
              Decline
            </button>
          </div>
        </form>
      )}
      {item.resolution && (
        <Answered
          by={item.resolution.answeredBy}
          at={item.resolution.answeredAt}
          text={
            item.resolution.outcome === 'answered'
              ? `Answered: ${[
                  ...(item.resolution.answer?.choiceIds ?? []).map(
                    (id) => request?.choices.find((c) => c.id === id)?.label ?? id,
                  ),
                  ...(item.resolution.answer?.text ? [item.resolution.answer.text] : []),
                ].join(', ')}`
              : item.resolution.outcome === 'declined'
                ? 'Declined'
                : 'Cancelled'
          }
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
