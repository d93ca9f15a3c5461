/**
 * LangChain4j models behind the gate: {@link io.backpressure.langchain4j.GatedChatModel} and {@link
 * io.backpressure.langchain4j.GatedStreamingChatModel} decorate a {@code ChatModel} or {@code
 * StreamingChatModel}, admitting every call and releasing it with the reply's token usage.
 */
package io.backpressure.langchain4j;
