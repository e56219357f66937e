CREATE TABLE `journal_base` (
	`session_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`time` integer NOT NULL,
	`snapshot` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `retention_run` (
	`position` integer PRIMARY KEY NOT NULL,
	`time` integer NOT NULL,
	`summary` text NOT NULL
);
