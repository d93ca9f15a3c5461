package io.backpressure.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.function.Consumer;

/**
 * Forwards every event of a stream to the caller's handler and, exactly once, reports the stream's
 * end (its final response to {@code onComplete}, or its error to {@code onFailure}) before the
 * caller's handler sees it. The model calls a handler from one thread at a time, so no further
 * synchronisation is needed.
 */
final class ReleasingHandler implements StreamingChatResponseHandler {
  private final StreamingChatResponseHandler handler;
  private final Consumer<ChatResponse> onComplete;
  private final Consumer<Throwable> onFailure;
  private boolean ended;

  ReleasingHandler(
      StreamingChatResponseHandler handler,
      Consumer<ChatResponse> onComplete,
      Consumer<Throwable> onFailure) {
    this.handler = handler;
    this.onComplete = onComplete;
    this.onFailure = onFailure;
  }

  @Override
  public void onPartialResponse(String partialResponse) {
    handler.onPartialResponse(partialResponse);
  }

  @Override
  public void onPartialResponse(PartialResponse partialResponse, PartialResponseContext context) {
    handler.onPartialResponse(partialResponse, context);
  }

  @Override
  public void onPartialThinking(PartialThinking partialThinking) {
    handler.onPartialThinking(partialThinking);
  }

  @Override
  public void onPartialThinking(PartialThinking partialThinking, PartialThinkingContext context) {
    handler.onPartialThinking(partialThinking, context);
  }

  @Override
  public void onPartialToolCall(PartialToolCall partialToolCall) {
    handler.onPartialToolCall(partialToolCall);
  }

  @Override
  public void onPartialToolCall(PartialToolCall partialToolCall, PartialToolCallContext context) {
    handler.onPartialToolCall(partialToolCall, context);
  }

  @Override
  public void onCompleteToolCall(CompleteToolCall completeToolCall) {
    handler.onCompleteToolCall(completeToolCall);
  }

  @Override
  public void onUnmappedRawEvent(Object event) {
    handler.onUnmappedRawEvent(event);
  }

  @Override
  public void onCompleteResponse(ChatResponse response) {
    if (!ended) {
      ended = true;
      onComplete.accept(response);
    }
    handler.onCompleteResponse(response);
  }

  @Override
  public void onError(Throwable error) {
    if (!ended) {
      ended = true;
      onFailure.accept(error);
    }
    handler.onError(error);
  }
}
