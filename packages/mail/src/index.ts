export * from './nodemailer-mailer';
export * from './invitation-message';
