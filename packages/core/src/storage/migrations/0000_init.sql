CREATE TABLE `session_execution` (
	`session_id` text PRIMARY KEY NOT NULL,
	`turn_id` text NOT NULL,
	`reason` text NOT NULL,
	`attempts` integer NOT NULL,
	`time_started` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `session_inbox` (
	`message_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_inbox_session_seq` ON `session_inbox` (`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `session` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`directory` text NOT NULL,
	`agent` text,
	`model` text,
	`seq` integer NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_time_created` ON `session` (`time_created`);--> statement-breakpoint
CREATE TABLE `session_message` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `session_message_session_seq` ON `session_message` (`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `event` (
	`position` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`aggregate_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`version` integer NOT NULL,
	`time` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `event_aggregate_seq` ON `event` (`aggregate_id`,`seq`);