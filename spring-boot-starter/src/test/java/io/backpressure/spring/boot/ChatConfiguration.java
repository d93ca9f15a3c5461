package io.backpressure.spring.boot;

import io.backpressure.springai.BackpressureAdvisor;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

// The README's example, compiled and run by ReadmeExampleTest.
// README:begin
/** Adds the starter's advisor to the application's ChatClient. */
@Configuration
class ChatConfiguration {
  @Bean
  ChatClient chatClient(ChatClient.Builder builder, BackpressureAdvisor advisor) {
    return builder.defaultAdvisors(advisor).build(); // every call of this client is gated
  }
}
// README:end
