CREATE TABLE `session_permission` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`message_id` text NOT NULL,
	`part_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	`reply` text,
	`message` text,
	FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_permission_session` ON `session_permission` (`session_id`,`seq`);