import { ddlEffect, type DdlEffect } from './ddl';

/** The followed table of most cases: `shop`.`orders`, with `shop` the statement's current database. */
const ORDERS = { schema: 'shop', name: 'orders' };
const effectOf = (statement: string, table = ORDERS, defaultSchema = 'shop'): DdlEffect => ddlEffect(statement, defaultSchema, table);
const NONE: DdlEffect = { effect: 'none' };
const ADDED: DdlEffect = { effect: 'columns-added' };
const rewritten = (statement: string): DdlEffect => ({ effect: 'rewritten', statement });

describe('ddlEffect: columns appended at the end keep the rows readable', () => {
  it.each([
    ['ADD COLUMN', 'ALTER TABLE orders ADD COLUMN note TEXT'],
    ['ADD without the COLUMN keyword', 'ALTER TABLE orders ADD note TEXT'],
    ['several columns, one clause each', 'ALTER TABLE orders ADD COLUMN a INT, ADD COLUMN b INT NOT NULL DEFAULT 0'],
    ['several columns in parentheses', 'ALTER TABLE orders ADD (a INT, b VARCHAR(10))'],
    ['IF NOT EXISTS (MariaDB)', 'ALTER TABLE orders ADD COLUMN IF NOT EXISTS a INT'],
    ['a backquoted table name', 'ALTER TABLE `orders` ADD COLUMN a INT'],
    ['a qualified, backquoted name', 'ALTER TABLE `shop`.`orders` ADD COLUMN a INT'],
    ['a qualified name with spaces around the dot', 'ALTER TABLE shop . orders ADD COLUMN a INT'],
    ['lower case', 'alter table orders add column a int'],
    ['line breaks and tabs', 'ALTER TABLE orders\n\tADD COLUMN a INT,\n\tADD COLUMN b INT'],
    ['ALTER ONLINE / ALTER IGNORE', 'ALTER ONLINE IGNORE TABLE orders ADD COLUMN a INT'],
    ['ALTER TABLE IF EXISTS (MariaDB)', 'ALTER TABLE IF EXISTS orders ADD COLUMN a INT'],
    ['with an index on it (indexes are harmless)', 'ALTER TABLE orders ADD COLUMN a INT, ADD INDEX ix_a (a)'],
    ['with ALGORITHM and LOCK clauses', 'ALTER TABLE orders ADD COLUMN a INT, ALGORITHM=INSTANT, LOCK=NONE'],
    ['a column named like a keyword, backquoted', 'ALTER TABLE orders ADD COLUMN `index` INT, ADD COLUMN `first` INT'],
    ['a column whose name starts with a keyword', 'ALTER TABLE orders ADD COLUMN key_no INT, ADD check_no INT, ADD period_no INT'],
    ['a comment mentioning FIRST (not a placement)', "ALTER TABLE orders ADD COLUMN a INT COMMENT 'goes FIRST'"],
    ['a default holding a comma', "ALTER TABLE orders ADD COLUMN a VARCHAR(10) DEFAULT 'x, y'"],
    ['a default holding a doubled quote and a comma', "ALTER TABLE orders ADD COLUMN a VARCHAR(10) DEFAULT 'it''s, x'"],
    ['an ENUM column (commas in parentheses)', "ALTER TABLE orders ADD COLUMN a ENUM('x','y')"],
    ['a trailing -- comment', 'ALTER TABLE orders ADD COLUMN a INT -- why'],
    ['a trailing # comment', 'ALTER TABLE orders ADD COLUMN a INT # why'],
    ['a /* comment */ between the words', 'ALTER TABLE orders/* note */ADD COLUMN a INT'],
    ['an executable comment holding the whole statement', '/*!40000 ALTER TABLE `orders` ADD COLUMN a INT */'],
    ['a table of the default schema named unqualified', 'ALTER TABLE orders ADD COLUMN a INT UNIQUE'],
  ])('%s: %s', (_case, statement) => {
    expect(effectOf(statement)).toEqual(ADDED);
  });

  it('reads a table name with a doubled backquote in it', () => {
    expect(effectOf('ALTER TABLE `a``b` ADD COLUMN c INT', { schema: 'shop', name: 'a`b' })).toEqual(ADDED);
    expect(effectOf('ALTER TABLE `a``b` ADD COLUMN c INT', { schema: 'shop', name: 'a' })).toEqual(NONE);
  });

  it('reads unquoted names with characters beyond ASCII, as the server logs them (ALTER TABLE café …)', () => {
    const cafe = { schema: 'shop', name: 'café' };
    expect(effectOf('ALTER TABLE café ADD COLUMN x INT', cafe)).toEqual(ADDED);
    expect(effectOf('ALTER TABLE café DROP COLUMN x', cafe)).toEqual(rewritten('ALTER TABLE'));
    expect(effectOf('ALTER TABLE café ADD COLUMN x INT', { schema: 'shop', name: 'caf' })).toEqual(NONE);
  });

  it('reads a qualified name against the statement, an unqualified one against the current database', () => {
    expect(effectOf('ALTER TABLE shop.orders ADD COLUMN a INT', ORDERS, 'other')).toEqual(ADDED);
    expect(effectOf('ALTER TABLE orders ADD COLUMN a INT', ORDERS, 'other')).toEqual(NONE);
    expect(effectOf('ALTER TABLE other.orders ADD COLUMN a INT')).toEqual(NONE);
  });
});

describe('ddlEffect: statements the rows cannot be followed across', () => {
  it.each([
    ['ADD … FIRST', 'ALTER TABLE orders ADD COLUMN a INT FIRST', 'ALTER TABLE'],
    ['ADD … AFTER a column', 'ALTER TABLE orders ADD COLUMN a INT AFTER id', 'ALTER TABLE'],
    ['ADD … AFTER a backquoted column', 'ALTER TABLE orders ADD COLUMN a INT AFTER `id`', 'ALTER TABLE'],
    ['ADD … AFTER a backquoted column with a space', 'ALTER TABLE orders ADD COLUMN a INT AFTER `order id`', 'ALTER TABLE'],
    ['ADD IF NOT EXISTS … AFTER', 'ALTER TABLE orders ADD COLUMN IF NOT EXISTS a INT AFTER b', 'ALTER TABLE'],
    ['an added column among a dropped one', 'ALTER TABLE orders ADD COLUMN a INT, DROP COLUMN b', 'ALTER TABLE'],
    ['DROP COLUMN', 'ALTER TABLE orders DROP COLUMN note', 'ALTER TABLE'],
    ['DROP without the COLUMN keyword', 'ALTER TABLE orders DROP note', 'ALTER TABLE'],
    ['DROP COLUMN IF EXISTS', 'ALTER TABLE orders DROP COLUMN IF EXISTS note', 'ALTER TABLE'],
    ['MODIFY', 'ALTER TABLE orders MODIFY note VARCHAR(200)', 'ALTER TABLE'],
    ['CHANGE', 'ALTER TABLE orders CHANGE note remark TEXT', 'ALTER TABLE'],
    ['RENAME COLUMN', 'ALTER TABLE orders RENAME COLUMN note TO remark', 'ALTER TABLE'],
    ['ALTER TABLE … RENAME TO', 'ALTER TABLE orders RENAME TO old_orders', 'ALTER TABLE'],
    ['CONVERT TO CHARACTER SET (text keys are re-encoded)', 'ALTER TABLE orders CONVERT TO CHARACTER SET latin1', 'ALTER TABLE'],
    ['ADD PRIMARY KEY', 'ALTER TABLE orders ADD PRIMARY KEY (id)', 'ALTER TABLE'],
    ['ADD CONSTRAINT name PRIMARY KEY', 'ALTER TABLE orders ADD CONSTRAINT pk PRIMARY KEY (id)', 'ALTER TABLE'],
    ['ADD CONSTRAINT `a name` PRIMARY KEY', 'ALTER TABLE orders ADD CONSTRAINT `my pk` PRIMARY KEY (id)', 'ALTER TABLE'],
    ['ADD CONSTRAINT PRIMARY KEY without a name', 'ALTER TABLE orders ADD CONSTRAINT PRIMARY KEY (id)', 'ALTER TABLE'],
    ['a column added as the primary key', 'ALTER TABLE orders ADD COLUMN a INT PRIMARY KEY', 'ALTER TABLE'],
    ['DROP PRIMARY KEY', 'ALTER TABLE orders DROP PRIMARY KEY', 'ALTER TABLE'],
    ['PARTITION BY', 'ALTER TABLE orders PARTITION BY HASH(id)', 'ALTER TABLE'],
    ['EXCHANGE PARTITION of the table', 'ALTER TABLE orders EXCHANGE PARTITION p0 WITH TABLE parts', 'ALTER TABLE'],
    ['a dropped column in an executable comment', 'ALTER TABLE orders /*!50100 DROP COLUMN c */', 'ALTER TABLE'],
    ["a dropped column in MariaDB's executable comment", '/*M!100100 ALTER TABLE `orders` DROP COLUMN c */', 'ALTER TABLE'],
    ['TRUNCATE', 'TRUNCATE orders', 'TRUNCATE'],
    ['TRUNCATE TABLE', 'TRUNCATE TABLE orders', 'TRUNCATE TABLE'],
    ['TRUNCATE TABLE, qualified', 'TRUNCATE TABLE `shop`.`orders`', 'TRUNCATE TABLE'],
    ['DROP TABLE', 'DROP TABLE orders', 'DROP TABLE'],
    ['DROP TABLE as the server logs it', 'DROP TABLE `orders` /* generated by server */', 'DROP TABLE'],
    ['DROP TABLE IF EXISTS of a list', 'DROP TABLE IF EXISTS `archive`,`orders` /* generated by server */', 'DROP TABLE'],
    ['DROP TABLE of a list with a name holding a space', 'DROP TABLE `a b`,`orders` /* generated by server */', 'DROP TABLE'],
    ['DROP TABLE qualified', 'DROP TABLE IF EXISTS `shop`.`orders`', 'DROP TABLE'],
    ['DROP TABLE … CASCADE', 'DROP TABLE orders CASCADE', 'DROP TABLE'],
    ['RENAME TABLE from the name', 'RENAME TABLE orders TO old_orders', 'RENAME TABLE'],
    ['RENAME TABLE to the name', 'RENAME TABLE new_orders TO orders', 'RENAME TABLE'],
    ['RENAME TABLE, the second pair', 'RENAME TABLE a TO b, orders TO c', 'RENAME TABLE'],
    ['RENAME TABLE to another schema', 'RENAME TABLE `shop`.`orders` TO `archive`.`orders`', 'RENAME TABLE'],
    ['RENAME TABLE IF EXISTS (MariaDB)', 'RENAME TABLE IF EXISTS orders TO x', 'RENAME TABLE'],
    ['RENAME TABLE … NOWAIT (MariaDB)', 'RENAME TABLE orders NOWAIT TO x', 'RENAME TABLE'],
    ['ALTER TABLE of another table renamed to the name', 'ALTER TABLE new_orders RENAME TO orders', 'ALTER TABLE'],
    ['ALTER TABLE of another table renamed AS the qualified name', 'ALTER TABLE new_orders RENAME AS shop.orders', 'ALTER TABLE'],
    ["another table's partition exchanged with the table", 'ALTER TABLE parts EXCHANGE PARTITION p0 WITH TABLE orders WITHOUT VALIDATION', 'ALTER TABLE'],
    ['CREATE TABLE of the name', 'CREATE TABLE orders (id INT PRIMARY KEY)', 'CREATE TABLE'],
    ['CREATE TABLE with no space before its columns', 'CREATE TABLE `orders`(id INT PRIMARY KEY)', 'CREATE TABLE'],
    ['CREATE TABLE IF NOT EXISTS', 'CREATE TABLE IF NOT EXISTS orders (id INT)', 'CREATE TABLE'],
    ['CREATE OR REPLACE TABLE (MariaDB)', 'CREATE OR REPLACE TABLE orders (id INT)', 'CREATE OR REPLACE TABLE'],
    ['CREATE TABLE … LIKE', 'CREATE TABLE orders LIKE template', 'CREATE TABLE'],
    ['DROP DATABASE of its schema', 'DROP DATABASE shop', 'DROP DATABASE'],
    ['DROP SCHEMA IF EXISTS of its schema', 'DROP SCHEMA IF EXISTS `shop`', 'DROP SCHEMA'],
    ['CREATE OR REPLACE DATABASE of its schema (MariaDB)', 'CREATE OR REPLACE DATABASE shop', 'CREATE OR REPLACE DATABASE'],
  ])('%s: %s', (_case, statement, verb) => {
    expect(effectOf(statement)).toEqual(rewritten(verb));
  });

  it('names the statement by its kind only, never by the table or the words after it', () => {
    expect(effectOf('DROP TABLE IF EXISTS `orders` /* generated by server */')).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('create table `orders`(id int)')).toEqual(rewritten('CREATE TABLE'));
  });

  it('reads names with spaces, commas, dots and backquotes inside backquotes', () => {
    expect(effectOf('DROP TABLE `a b` /* generated by server */', { schema: 'shop', name: 'a b' })).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('DROP TABLE `a  b`', { schema: 'shop', name: 'a  b' })).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('DROP TABLE `a,b`', { schema: 'shop', name: 'a,b' })).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('DROP TABLE `a``b`', { schema: 'shop', name: 'a`b' })).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('TRUNCATE `my.table`', { schema: 'shop', name: 'my.table' })).toEqual(rewritten('TRUNCATE'));
    expect(effectOf('RENAME TABLE `a to b` TO c', { schema: 'shop', name: 'a to b' })).toEqual(rewritten('RENAME TABLE'));
    expect(effectOf('RENAME TABLE `a to b` TO c', { schema: 'shop', name: 'b' })).toEqual(NONE);
  });

  it('reads string literals as text: a comment marker, a backslash-escaped quote or a comma inside one hides no clause', () => {
    expect(effectOf("ALTER TABLE orders ADD COLUMN c VARCHAR(10) DEFAULT 'a -- b', DROP COLUMN d")).toEqual(rewritten('ALTER TABLE'));
    expect(effectOf("ALTER TABLE orders ADD COLUMN c VARCHAR(10) DEFAULT 'a #b', DROP COLUMN d")).toEqual(rewritten('ALTER TABLE'));
    expect(effectOf("ALTER TABLE orders ADD COLUMN c VARCHAR(10) DEFAULT 'it\\'s', DROP COLUMN d")).toEqual(rewritten('ALTER TABLE'));
    expect(effectOf("ALTER TABLE orders ADD COLUMN c VARCHAR(10) COMMENT '/*', DROP COLUMN d")).toEqual(rewritten('ALTER TABLE'));
  });

  it('drops comments outside literals: a clause commented out is not read', () => {
    expect(effectOf('ALTER TABLE orders ADD COLUMN c INT -- , DROP COLUMN e')).toEqual(ADDED);
    expect(effectOf('ALTER TABLE orders ADD COLUMN c INT\n# DROP COLUMN e\n, ADD COLUMN f INT')).toEqual(ADDED);
    expect(effectOf('ALTER TABLE orders ADD COLUMN c INT /* , DROP COLUMN e */')).toEqual(ADDED);
  });
});

describe('ddlEffect: statements that leave the rows as they are', () => {
  it.each([
    ['ADD INDEX', 'ALTER TABLE orders ADD INDEX ix (a)'],
    ['ADD KEY', 'ALTER TABLE orders ADD KEY ix (a)'],
    ['ADD UNIQUE', 'ALTER TABLE orders ADD UNIQUE (a)'],
    ['ADD UNIQUE KEY', 'ALTER TABLE orders ADD UNIQUE KEY uq (a)'],
    ['ADD FULLTEXT KEY', 'ALTER TABLE orders ADD FULLTEXT KEY ft (note)'],
    ['ADD SPATIAL INDEX', 'ALTER TABLE orders ADD SPATIAL INDEX (g)'],
    ['ADD FOREIGN KEY', 'ALTER TABLE orders ADD FOREIGN KEY (a) REFERENCES b (id)'],
    ['ADD CONSTRAINT … FOREIGN KEY to a table named primary_…', 'ALTER TABLE orders ADD CONSTRAINT primary_fk FOREIGN KEY (a) REFERENCES primary_t (id)'],
    ['ADD CONSTRAINT … CHECK', 'ALTER TABLE orders ADD CONSTRAINT positive CHECK (amount > 0)'],
    ['DROP INDEX', 'ALTER TABLE orders DROP INDEX ix'],
    ['DROP FOREIGN KEY', 'ALTER TABLE orders DROP FOREIGN KEY fk'],
    ['RENAME INDEX', 'ALTER TABLE orders RENAME INDEX a TO b'],
    ['ALGORITHM=INPLACE with an index', 'ALTER TABLE orders ALGORITHM=INPLACE, ADD INDEX ix (a)'],
    ['COMMENT=', "ALTER TABLE orders COMMENT = 'hello, world'"],
    ['ENGINE=InnoDB (a rebuild keeps the rows)', 'ALTER TABLE orders ENGINE=InnoDB'],
    ['ENGINE = InnoDB', 'ALTER TABLE orders ENGINE = InnoDB'],
    ['FORCE', 'ALTER TABLE orders FORCE'],
    ['AUTO_INCREMENT', 'ALTER TABLE orders AUTO_INCREMENT = 1000'],
    ['ROW_FORMAT', 'ALTER TABLE orders ROW_FORMAT=DYNAMIC'],
    ['STATS_PERSISTENT', 'ALTER TABLE orders STATS_PERSISTENT=1'],
    ["mysqldump's DISABLE KEYS in an executable comment", '/*!40000 ALTER TABLE `orders` DISABLE KEYS */'],
    ["mysqldump's ENABLE KEYS in an executable comment", '/*!40000 ALTER TABLE `orders` ENABLE KEYS */'],
    ['an ALTER TABLE of nothing', 'ALTER TABLE `orders`'],
    ['another table', 'ALTER TABLE order_lines DROP COLUMN a'],
    ['a table whose name the table name starts', 'ALTER TABLE ord DROP COLUMN a'],
    ['the same name in another schema', 'ALTER TABLE other.orders DROP COLUMN a'],
    ['another table renamed to the name in another schema', 'ALTER TABLE other.orders RENAME TO other.orders2'],
    ['another table renaming a column named like the table', 'ALTER TABLE t RENAME COLUMN orders TO x'],
    ['TRUNCATE of the name in another schema', 'TRUNCATE TABLE other.orders'],
    ['DROP TABLE of other tables', 'DROP TABLE `a`, `b`'],
    ['DROP TABLE of a longer name', 'DROP TABLE orders2'],
    ['DROP TABLE of the name in another schema', 'DROP TABLE other.orders'],
    ['RENAME TABLE of other tables', 'RENAME TABLE a TO b'],
    ['RENAME TABLE within another schema', 'RENAME TABLE other.orders TO other.x'],
    ['CREATE TABLE of another name', 'CREATE TABLE orders2 (id INT)'],
    ['CREATE TABLE … LIKE the table', 'CREATE TABLE copy LIKE orders'],
    ['CREATE TABLE of the name in another schema', 'CREATE TABLE other.orders (id INT)'],
    ['CREATE INDEX', 'CREATE INDEX ix ON orders (a)'],
    ['CREATE UNIQUE INDEX', 'CREATE UNIQUE INDEX ix ON orders (a)'],
    ['DROP INDEX … ON', 'DROP INDEX ix ON orders'],
    ['DROP DATABASE of another schema', 'DROP DATABASE other'],
    ['CREATE DATABASE of its schema', 'CREATE DATABASE shop'],
    ['INSERT', 'INSERT INTO orders VALUES (1)'],
    ['UPDATE', 'UPDATE orders SET a = 1'],
    ['DELETE', 'DELETE FROM orders'],
    ['BEGIN', 'BEGIN'],
    ['an empty statement', ''],
  ])('%s: %s', (_case, statement) => {
    expect(effectOf(statement)).toEqual(NONE);
  });

  it('reads the current database for unqualified names: the same statement in another database is about another table', () => {
    expect(effectOf('DROP TABLE orders', ORDERS, 'other')).toEqual(NONE);
    expect(effectOf('DROP TABLE shop.orders', ORDERS, 'other')).toEqual(rewritten('DROP TABLE'));
    expect(effectOf('RENAME TABLE other.x TO orders', ORDERS, 'shop')).toEqual(rewritten('RENAME TABLE'));
    expect(effectOf('RENAME TABLE other.x TO orders', ORDERS, 'other')).toEqual(NONE);
  });

  it('compares names exactly, as a server with case-sensitive table names (the Linux default) does', () => {
    expect(effectOf('DROP TABLE `Orders`')).toEqual(NONE);
  });
});
