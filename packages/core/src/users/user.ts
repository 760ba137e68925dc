/** A person. Users are global: one per e-mail address, compared case-insensitively. */
export interface User {
  readonly id: string;
  /** Stored lower-cased. */
  readonly email: string;
  readonly firstName?: string | undefined;
  readonly lastName?: string | undefined;
  readonly picture?: string | undefined;
  readonly createdAt: Date;
}

export interface UserRepository {
  create(user: User): Promise<void>;
  findById(id: string): Promise<User | undefined>;
  /** `email` is matched case-insensitively. */
  findByEmail(email: string): Promise<User | undefined>;
}
