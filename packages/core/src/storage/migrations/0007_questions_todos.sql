CREATE TABLE `session_question` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`message_id` text,
	`call_id` text,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	`state` text NOT NULL,
	`answers` text,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_question_session` ON `session_question` (`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `session_todo` (
	`session_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
