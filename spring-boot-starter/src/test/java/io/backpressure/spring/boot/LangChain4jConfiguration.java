package io.backpressure.spring.boot;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.langchain4j.SendCheckingHttpClientBuilder;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

// The README's LangChain4j example, compiled and run by ReadmeExampleTest.
// README:begin
/** A LangChain4j model of the application's own; the starter wraps it in GatedChatModel. */
@Configuration
class LangChain4jConfiguration {
  @Bean
  ChatModel chatModel(@Value("${openai.base-url}") String baseUrl) {
    return OpenAiChatModel.builder()
        .httpClientBuilder(SendCheckingHttpClientBuilder.create()) // the send check
        .baseUrl(baseUrl)
        .apiKey("sk-mock")
        .modelName("gpt-4o-mini")
        .maxRetries(0) // the gate replaces retries
        .build();
  }
}
// README:end
