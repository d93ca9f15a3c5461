package io.backpressure.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import io.backpressure.client.GateContext;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.Cost;
import java.util.ArrayList;
import java.util.List;

/**
 * What both decorators read from LangChain4j's types: the call's context, its estimated cost and
 * completion limit, and its true usage. Immutable and thread-safe.
 */
final class ChatCalls {
  private final TokenEstimator estimator;
  private final GateContext defaultContext;

  ChatCalls(TokenEstimator estimator, GateContext defaultContext) {
    this.estimator = estimator;
    this.defaultContext = defaultContext;
  }

  /**
   * The call's context: the {@link GateContext#KEY} listener attribute of {@code options}, else the
   * context scoped on this thread, else the decorator's default; {@code null} when there is none.
   */
  GateContext context(ChatRequestOptions options) {
    if (options != null
        && options.listenerAttributes().get(GateContext.KEY) instanceof GateContext attribute) {
      return attribute;
    }
    return GateContext.current().orElse(defaultContext);
  }

  /** One request and the estimated prompt tokens of every message. */
  Cost estimate(ChatRequest request) {
    List<String> texts = new ArrayList<>(request.messages().size());
    for (ChatMessage message : request.messages()) {
      texts.add(text(message));
    }
    return Cost.requests(1).tokens(estimator.estimate(texts));
  }

  /** The request's {@code maxOutputTokens}, else the model's default, else {@code null}. */
  static Long maxTokens(ChatRequest request, ChatRequestParameters modelDefaults) {
    Integer max = request.maxOutputTokens();
    if (max == null && modelDefaults != null) {
      max = modelDefaults.maxOutputTokens();
    }
    return max == null ? null : max.longValue();
  }

  /** One request and the reply's total tokens, or {@code null} when the reply reports no usage. */
  static Cost usage(ChatResponse response) {
    TokenUsage usage = response == null ? null : response.tokenUsage();
    if (usage == null) {
      return null;
    }
    Integer total = usage.totalTokenCount();
    if (total == null) {
      if (usage.inputTokenCount() == null && usage.outputTokenCount() == null) {
        return null;
      }
      total = zeroIfNull(usage.inputTokenCount()) + zeroIfNull(usage.outputTokenCount());
    }
    return Cost.requests(1).tokens(total);
  }

  private static int zeroIfNull(Integer value) {
    return value == null ? 0 : value;
  }

  /** The text a provider tokenizes for {@code message}: its text parts and tool-call arguments. */
  private static String text(ChatMessage message) {
    if (message instanceof SystemMessage system) {
      return system.text();
    }
    if (message instanceof UserMessage user) {
      StringBuilder text = new StringBuilder();
      user.contents()
          .forEach(
              content -> {
                if (content instanceof TextContent part) {
                  text.append(part.text());
                }
              });
      return text.toString();
    }
    if (message instanceof AiMessage ai) {
      StringBuilder text = new StringBuilder(ai.text() == null ? "" : ai.text());
      for (ToolExecutionRequest call : ai.toolExecutionRequests()) {
        text.append(call.name()).append(call.arguments() == null ? "" : call.arguments());
      }
      return text.toString();
    }
    if (message instanceof ToolExecutionResultMessage result) {
      return result.text() == null ? "" : result.text();
    }
    return "";
  }
}
